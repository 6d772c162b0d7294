import { refsAsRead } from '#db/refs';
import type { PeopleReferences } from './people-references.ts';
import { keys } from '#db/keys';
import { transact, retryWhenStale, transactWithCascade, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject } from './access.ts';
import { accessToItem } from './item-access.ts';
import { lookupStep } from '#db/lookup';
import { planOfProject, retentionOfProject } from './projects.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { queryPrefix } from '#db/query';
import { compareText } from '#shared/text';
import { visible, setFieldsStep, visibleFilter } from '#db/live';
import { counterStep, putNewStep } from '#db/steps';
import type { Permission } from '#auth/permissions';
import { takeQuotaStep, PROJECT_USERS_QUOTA } from '#domain/billing';
import { projectUserEntity, projectUserView, type ProjectUser } from './project-user-entity.ts';

export type ProjectUserFields = Partial<Pick<ProjectUser, 'name' | 'email' | 'job_title' | 'phone' | 'notes'>>;

export const PROJECT_USER_NOT_FOUND = 'Project user not found';
export const NOT_AUTHORIZED_VIEW_PROJECT_USERS = 'Not authorized to view project users in this project';
export const NOT_AUTHORIZED_MANAGE_PROJECT_USERS = 'Not authorized to manage project users in this project';

/** What an audit entry records of a project user: what its readers see of it. */
const auditedPerson = (u: ProjectUser) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = projectUserView.project(u);
  return shown;
};

/** Access to a project user addressed by bare id (the item access primitive): unknown, foreign and deleted ids give the same 404, then `permission`. */
async function accessToProjectUser(ctx: AppContext, id: string, permission: Permission, detail: string) {
  const { access, item } = await accessToItem<ProjectUser>({
    kind: 'project_user',
    id,
    userId: actorAccount(ctx).id,
    scope: 'project',
    notFound: notFound(PROJECT_USER_NOT_FOUND),
    permission: { key: permission, detail },
  });
  return { access, person: projectUserEntity.decode(item) };
}

/** GET /project-users: a project's people, by name (project_users.view). */
export async function listProjectUsers(
  ctx: AppContext,
  input: { project_id: string; updated_since?: string },
): Promise<ProjectUser[]> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.require('project_users.view', NOT_AUTHORIZED_VIEW_PROJECT_USERS);
  const people = visible(
    await queryPrefix<ProjectUser>(input.project_id, keys.projectUserPrefix, visibleFilter(input.updated_since)),
    input.updated_since,
  ).map(projectUserEntity.decode);
  return people.sort((a, b) => compareText(a.name, b.name) || a.created_at.localeCompare(b.created_at));
}

/** GET /project-users/{id} (project_users.view). */
export async function getProjectUser(ctx: AppContext, input: { id: string }): Promise<ProjectUser> {
  return (await accessToProjectUser(ctx, input.id, 'project_users.view', NOT_AUTHORIZED_VIEW_PROJECT_USERS)).person;
}

/** Adds a person within the plan's `max_project_users`, counted on the project in the same transaction. */
export async function createProjectUser(
  ctx: AppContext,
  input: ProjectUserFields & { project_id: string; name: string },
): Promise<ProjectUser> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.require('project_users.manage', NOT_AUTHORIZED_MANAGE_PROJECT_USERS);
  const plan = await planOfProject(access.project);
  const now = ctx.clock.now().toISOString();
  const person = projectUserEntity.create({
    id: ctx.ids.newId(),
    project_id: access.project.id,
    name: input.name,
    email: input.email ?? null,
    job_title: input.job_title ?? null,
    phone: input.phone ?? null,
    notes: input.notes ?? null,
    created_at: now,
    updated_at: now,
  });
  const key = keys.projectUser(person.project_id, person.id);
  await transact([
    takeQuotaStep(keys.project(person.project_id), 'project_user_count', plan, PROJECT_USERS_QUOTA),
    putNewStep(projectUserEntity.encode(key, person)),
    lookupStep(person.id, person.project_id, key, 'project_user'),
    ...creationAudit(ctx, 'project_user', person, auditedPerson(person)),
  ]);
  return person;
}

// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const updateProjectUser = (...args: Parameters<typeof updateProjectUserOnce>) =>
  retryWhenStale(() => updateProjectUserOnce(...args));

async function updateProjectUserOnce(ctx: AppContext, input: ProjectUserFields & { id: string }): Promise<ProjectUser> {
  const { id, ...patch } = input;
  const { access, person } = await accessToProjectUser(
    ctx,
    id,
    'project_users.manage',
    NOT_AUTHORIZED_MANAGE_PROJECT_USERS,
  );
  const updated_at = ctx.clock.now().toISOString();
  const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const updated = { ...person, ...changes, updated_at };
  const changed = Object.entries(changes).some(([k, v]) => v !== (person as unknown as Record<string, unknown>)[k]);
  const audit = changed
    ? changeAudit(
        ctx,
        'project_user',
        'update',
        person,
        { before: auditedPerson(person), after: auditedPerson(updated) },
        await retentionOfProject(access.project),
      )
    : undefined;
  await transact([
    setFieldsStep(
      keys.projectUser(person.project_id, person.id),
      { ...patch, updated_at, audit_head: audit?.head },
      notFound(PROJECT_USER_NOT_FOUND),
    ),
    ...(audit?.steps ?? []),
  ]);
  return updated;
}

/** Soft delete; the plan slot is free again; with `references` (the catalog's), the services naming them are cleared in the same change. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteProjectUser = (...args: Parameters<typeof deleteProjectUserOnce>) =>
  retryWhenStale(() => deleteProjectUserOnce(...args));

async function deleteProjectUserOnce(
  ctx: AppContext,
  input: { id: string },
  references?: PeopleReferences,
): Promise<void> {
  const { access, person } = await accessToProjectUser(
    ctx,
    input.id,
    'project_users.manage',
    NOT_AUTHORIZED_MANAGE_PROJECT_USERS,
  );
  const now = ctx.clock.now().toISOString();
  const [days, named] = await Promise.all([
    retentionOfProject(access.project),
    references ? references(ctx, person.project_id, person.id) : { steps: [], serviceIds: [] },
  ]);
  const audit = changeAudit(
    ctx,
    'project_user',
    'delete',
    person,
    { before: auditedPerson(person), after: null },
    days,
    {
      ...(references ? { summary: { responsible_cleared_service_ids: named.serviceIds } } : {}),
    },
  );
  await transactWithCascade(named.steps, [
    // The soft delete (the live rule's condition) of the person as read: a service naming them since moved its refs_version (read again).
    setFieldsStep(
      keys.projectUser(person.project_id, person.id),
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      CASCADE_STALE,
      refsAsRead(person),
    ),
    ...audit.steps,
    counterStep(keys.project(person.project_id), { project_user_count: -1 }),
  ]);
}
