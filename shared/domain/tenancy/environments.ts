import { visible, visibleFilter } from '#db/live';
import { onContention } from '#db/retry';
import { keys } from '#db/keys';
import { transact, concurrentChange, retryWhenStale, type TransactStep, CASCADE_STALE } from '#db/transact';
import { forbidden, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject } from './access.ts';
import { accessToItem, type ItemRequest } from './item-access.ts';
import { lookupStep, type Key } from '#db/lookup';
import { planOfProject, retentionOfProject } from './projects.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { projectInventory } from './inventory.ts';
import { claimNameStep, namedWriteSteps, type NameScope } from '#db/unique-names';
import { queryPartition } from '#db/query';
import { counterStep, putNewStep } from '#db/steps';
import { countIs } from '#db/counter-moves';
import { takeQuotaStep, ENVIRONMENTS_QUOTA } from '#domain/billing';
import { environmentEntity, type Environment } from './environment-entity.ts';

/** What an audit entry records of an environment (the entity is its own environment, so an environment-scoped reader sees it). */
const auditedEnv = (e: Environment) => ({ id: e.id, name: e.name, project_id: e.project_id });
const envEntity = (e: Environment) => ({
  id: e.id,
  project_id: e.project_id,
  environment_id: e.id,
  audit_head: e.audit_head,
});

export const ENVIRONMENT_NOT_FOUND = 'Environment not found';
const NOT_AUTHORIZED_TO_VIEW = 'Not authorized to view environments for this project';
const nameScope = (projectId: string): NameScope => ({
  projectId,
  kind: 'ENV',
  scopeId: projectId,
  takenDetail: 'Environment with this name already exists in this project',
});

/**
 * The caller's access to the environment with this id, with the environment itself (the item
 * access primitive: an environment is an item in itself); `extra` keys are read alongside, given
 * the project id. Unknown, deleted and foreign environments give the same 404; then `permission`
 * (in the environment).
 */
export async function accessToEnvironment(
  envId: string,
  userId: string,
  {
    extra = () => [],
    permission,
  }: { extra?: (projectId: string) => Key[]; permission?: ItemRequest['permission'] } = {},
) {
  const { access, item } = await accessToItem({
    decode: environmentEntity.decode,
    kind: 'environment',
    id: envId,
    userId,
    notFound: notFound(ENVIRONMENT_NOT_FOUND),
    permission,
    extra: (l) => extra(l.projectId),
  });
  return { access, env: item };
}

/** A project's environments (the list rule applies); no access check: for callers that made theirs. */
export async function environmentsOf(projectId: string, updatedSince?: string): Promise<Environment[]> {
  const items = await queryPartition(keys.projectPK(projectId), keys.environmentPrefix, visibleFilter(updatedSince));
  return visible(items.map(environmentEntity.decode), updatedSince).sort((a, b) =>
    a.created_at.localeCompare(b.created_at),
  );
}

/** GET /environments and its stats answer non-members 403 rather than 404 (SPEC general rule 4). */
const memberAccess = (ctx: AppContext, projectId: string) =>
  accessToProject(projectId, actorAccount(ctx).id, { notFoundError: forbidden(NOT_AUTHORIZED_TO_VIEW) });

/** GET /environments: a project's environments, for any member. */
export async function listEnvironments(
  ctx: AppContext,
  input: { project_id: string; updated_since?: string },
): Promise<Environment[]> {
  await memberAccess(ctx, input.project_id);
  return environmentsOf(input.project_id, input.updated_since);
}

/** GET /environments/stats: live counts per environment, for any member. */
export async function environmentStats(ctx: AppContext, input: { project_id: string }) {
  await memberAccess(ctx, input.project_id);
  const perEnv = await projectInventory(input.project_id);
  return [...perEnv].map(([environment_id, c]) => ({
    environment_id,
    name: c.name,
    services: c.services,
    servers: c.servers,
    groups: c.groups,
    networks: c.networks,
  }));
}

export async function createEnvironment(
  ctx: AppContext,
  input: { project_id: string; name: string },
): Promise<Environment> {
  const access = await accessToProject(input.project_id, actorAccount(ctx).id);
  access.require('env.manage', 'Not authorized to create environments in this project');
  const plan = await planOfProject(access.project);
  const now = ctx.clock.now().toISOString();
  const env = environmentEntity.create({
    id: ctx.ids.newId(),
    name: input.name.trim(),
    project_id: access.project.id,
    created_at: now,
    updated_at: now,
  });
  const key = keys.environment(env.project_id, env.id);
  await transact([
    takeQuotaStep(keys.project(env.project_id), 'env_count', plan, ENVIRONMENTS_QUOTA),
    claimNameStep(nameScope(env.project_id), env.name, env.id),
    putNewStep(environmentEntity.encode(key, env)),
    lookupStep(env.id, env.project_id, key, 'environment'),
    ...creationAudit(ctx, 'environment', envEntity(env), auditedEnv(env)),
  ]);
  return env;
}

/** A rename racing another change of the name (or the delete) is re-run from a new read (unique-names.ts). */
export const renameEnvironment = (ctx: AppContext, input: { id: string; name: string }): Promise<Environment> =>
  retryWhenStale(() => renameOnce(ctx, input));

async function renameOnce(ctx: AppContext, input: { id: string; name: string }): Promise<Environment> {
  const { access, env } = await accessToEnvironment(input.id, actorAccount(ctx).id);
  access.require('env.manage', 'Not authorized to manage environments in this project');
  const updated: Environment = { ...env, name: input.name.trim(), updated_at: ctx.clock.now().toISOString() };
  // A rename to the same name changes nothing an entry would show: no entry.
  const audit =
    updated.name === env.name
      ? undefined
      : changeAudit(
          ctx,
          'environment',
          'update',
          envEntity(env),
          { before: auditedEnv(env), after: auditedEnv(updated) },
          await retentionOfProject(access.project),
        );
  await transact([
    ...namedWriteSteps(
      nameScope(env.project_id),
      { ...env, key: keys.environment(env.project_id, env.id) },
      { name: updated.name, updated_at: updated.updated_at, audit_head: audit?.head },
      notFound(ENVIRONMENT_NOT_FOUND),
    ),
    ...(audit?.steps ?? []),
  ]);
  return updated;
}

/**
 * Soft delete: the environment and what it holds leave every list; its name is free again and the
 * plan slots it used (the environment and its services) are released.
 */
export async function deleteEnvironment(ctx: AppContext, input: { id: string }): Promise<void> {
  const userId = actorAccount(ctx).id;
  const first = await accessToEnvironment(input.id, userId);
  first.access.require('env.manage', 'Not authorized to manage environments in this project');
  const days = await retentionOfProject(first.access.project);
  // A service created or deleted meanwhile moves the count and fails the delete: read the
  // environment again (a 404 if it is gone meanwhile) and subtract what it holds now.
  await onContention(
    async (attempt) => {
      const env = attempt === 1 ? first.env : (await accessToEnvironment(input.id, userId)).env;
      const now = ctx.clock.now().toISOString();
      const audit = changeAudit(
        ctx,
        'environment',
        'delete',
        envEntity(env),
        { before: auditedEnv(env), after: null },
        days,
        {
          summary: { services_removed: env.service_count ?? 0 },
        },
      );
      await transact([
        ...deleteCountedSteps(env, now, audit.head),
        ...audit.steps,
        counterStep(keys.project(env.project_id), { env_count: -1, service_count: -(env.service_count ?? 0) }),
      ]);
    },
    (err) => err === COUNT_MOVED || err === CASCADE_STALE,
  );
}

/** The 409 when the environment's service count keeps moving under the delete (compared by identity). */
const COUNT_MOVED = concurrentChange();

/**
 * The soft delete of a live environment whose service count is still the one read: the project
 * loses exactly the services the environment held, whatever services are created or deleted in it
 * concurrently (their transactions move the same counter, so one of the two writes fails and is
 * re-read). A gone environment's refusal is its 404, read again by the retry.
 */
function deleteCountedSteps(env: Environment, now: string, auditHead: string): TransactStep[] {
  const count = env.service_count ?? 0;
  // A rename meanwhile fails it too (its name's release is the one of the name read).
  return namedWriteSteps(
    nameScope(env.project_id),
    { ...env, key: keys.environment(env.project_id, env.id) },
    { deleted_at: now, updated_at: now, audit_head: auditHead },
    COUNT_MOVED,
    {
      stale: COUNT_MOVED,
      also: countIs('service_count', count),
    },
  );
}
