import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale } from '#db/transact';
import { invalid, forbidden, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { isStaff } from '#shared/actor';
import { canCreateProjects, getAccount, type Account } from '#domain/identity';
import { PROJECT_NOT_FOUND, accessToProject, isOwnerMembership, type Membership } from './access.ts';
import type { Project } from './project-types.ts';
import { projectEntity as storedProject } from './project-entity.ts';
import { membershipEntity, userMembershipEntity } from './membership-entity.ts';
import { accountEntity } from '#shared/account-entity';
import {
  FREE_PLAN_ID,
  getPlan,
  type Plan,
  activePlan,
  quotaLimit,
  requireRoom,
  takeQuotaStep,
  PROJECTS_QUOTA,
} from '#domain/billing';
import { projectInventory, totals } from './inventory.ts';
import { queryPartition } from '#db/query';
import { compareText } from '#shared/text';
import { batchGet, keyId } from '#db/batch-get';
import { setFieldsStep, isLive } from '#db/live';
import { changeAudit, creationAudit } from '#shared/audit';
import { KEY_LIMITED_TO_PROJECTS, keyAllowsProject } from '#auth/key-grant';
import { counterStep, deleteStep, putNewStep, putStep } from '#db/steps';

/** What an audit entry records of a project: what its members read of it. */
const auditedProject = (p: Project) => ({
  id: p.id,
  identifier: p.identifier,
  name: p.name,
  cost_calc_enabled: p.cost_calc_enabled,
});
const projectEntity = (p: Project) => ({ id: p.id, project_id: p.id, audit_head: p.audit_head });
/**
 * The retention of the project's plan (`data_retention_days`), for the entry of a change. Kept per
 * owner for a minute, like the plans themselves: otherwise every audited update and delete pays one
 * more sequential read (the owner's subscriptions) only to date its entry's expiry, and an expiry a
 * minute out of date after a plan change is harmless (plan changes never rewrite entries anyway).
 */
const RETENTION_MS = 60_000;
const retentions = new Map<string, { at: number; days: Promise<number | null> }>();
export function retentionOfProject(project: Pick<Project, 'owner_id'>): Promise<number | null> {
  const now = Date.now();
  const known = retentions.get(project.owner_id);
  if (known && now - known.at <= RETENTION_MS) return known.days;
  if (retentions.size >= 1000) retentions.clear(); // a bound, not an LRU: a warm container serves few owners
  const days = planOfProject(project).then((plan) => plan.features.data_retention_days ?? null);
  retentions.set(project.owner_id, { at: now, days });
  days.catch(() => retentions.delete(project.owner_id));
  return days;
}

export function toProjectOut(p: Project, isOwner: boolean) {
  return {
    id: p.id,
    identifier: p.identifier,
    name: p.name,
    is_owner: isOwner,
    cost_calc_enabled: p.cost_calc_enabled,
    updated_at: p.updated_at,
    deleted_at: p.deleted_at,
  };
}

export const PROJECT_NAME_TAKEN = 'Project with this name already exists for this owner';

/** The plan whose limits apply to a project: its owner's active plan (Free when the owner has none). */
export async function planOfProject(project: Pick<Project, 'owner_id'>): Promise<Plan> {
  return (await activePlan(project.owner_id))?.plan ?? (await getPlan(FREE_PLAN_ID))!;
}

/**
 * POST /projects: creates a project with the caller (or, for staff, `creator_user_id`) as owner.
 * Refusals in SPEC's order: not a customer, no active subscription, project limit, creating for
 * someone else.
 */
export async function createProject(ctx: AppContext, input: { name: string; creator_user_id?: string | null }) {
  const caller = actorAccount(ctx);
  const forOther = Boolean(input.creator_user_id && input.creator_user_id !== caller.id);
  let owner = caller;
  if (forOther && isStaff(caller)) {
    const target = await getAccount(input.creator_user_id!);
    if (!target) throw notFound('Owner user not found');
    owner = target;
  }
  if (!canCreateProjects(owner)) throw forbidden('You are not allowed to create projects');
  if (ctx.actor?.key?.project_ids) throw forbidden(KEY_LIMITED_TO_PROJECTS);
  const active = await activePlan(owner.id);
  if (!active) throw forbidden('Active subscription required to create projects. Please choose a plan.');
  // Refused before the other checks, in SPEC's order; the counter step below is what holds under races.
  requireRoom(quotaLimit(active.plan, PROJECTS_QUOTA), owner.owned_project_count ?? 0);
  if (forOther && !isStaff(caller)) throw forbidden('You are not allowed to create projects for other users');

  const now = ctx.clock.now().toISOString();
  const project: Project = {
    id: ctx.ids.newId(),
    identifier: ctx.ids.newId(),
    name: input.name.trim(),
    cost_calc_enabled: false,
    owner_id: owner.id,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    env_count: 0,
    service_count: 0,
    project_user_count: 0,
    custom_role_count: 0,
  };
  await transact([
    takeQuotaStep(keys.account(owner.id), 'owned_project_count', active.plan, PROJECTS_QUOTA),
    putNewStep({ ...keys.projectName(owner.id, project.name), project_id: project.id }, invalid(PROJECT_NAME_TAKEN)),
    putNewStep({ ...keys.project(project.id), type: 'project', ...project }),
    ...membershipSteps(project.id, owner.id, 'owner', now),
    ...creationAudit(ctx, 'project', projectEntity(project), auditedProject(project)),
  ]);
  return { project, isOwner: owner.id === caller.id };
}

/** A membership and its user-side mirror, written together. */
export function membershipSteps(
  projectId: string,
  userId: string,
  role: Membership['role'],
  now: string,
): TransactStep[] {
  const membership: Membership = { project_id: projectId, user_id: userId, role, created_at: now };
  return [
    putNewStep(
      { ...keys.member(projectId, userId), type: 'member', ...membership },
      invalid('Membership already present'),
    ),
    putStep({ ...keys.membership(userId, projectId), type: 'membership', project_id: projectId, role }),
  ];
}

/** GET /projects: the caller's projects with their role; soft-deleted ones only when syncing (`updated_since`). */
export async function listProjects(ctx: AppContext, input: { updated_since?: string } = {}) {
  const userId = actorAccount(ctx).id;
  const updatedSince = input.updated_since;
  const items = await queryPartition(keys.account(userId).PK, keys.membershipPrefix);
  const keyProjects = ctx.actor?.key?.project_ids;
  const memberships = items.map(userMembershipEntity.decode).filter((m) => keyAllowsProject(keyProjects, m.project_id));
  const projects = await batchGet(memberships.map((m) => keys.project(m.project_id)));
  return memberships
    .map((m) => ({
      project: storedProject.decodeFound(projects.get(keyId(keys.project(m.project_id)))),
      isOwner: isOwnerMembership(m),
    }))
    .filter((r): r is { project: Project; isOwner: boolean } => Boolean(r.project))
    .filter(({ project }) => (updatedSince ? project.updated_at >= updatedSince : isLive(project)))
    .sort((a, b) => Number(b.isOwner) - Number(a.isOwner) || compareText(a.project.name, b.project.name));
}

/** Quota add-ons bought for a project raise its service limit (SPEC "Limits" 3). */
export const serviceQuotaAddon = (project: Project) => Number(project.service_quota_addon ?? 0) || 0;

/** The ids of the projects `userId` owns (whose plan governs them), deleted ones included: one Query. */
export async function ownedProjectIds(userId: string): Promise<string[]> {
  const memberships = (await queryPartition(keys.account(userId).PK, keys.membershipPrefix)).map(
    userMembershipEntity.decode,
  );
  return memberships.filter(isOwnerMembership).map((m) => m.project_id);
}

/** The live projects among `ids`, in that order: one BatchGet. */
export async function liveProjects(ids: string[]): Promise<Project[]> {
  const projects = await batchGet(ids.map((id) => keys.project(id)));
  return ids
    .map((id) => storedProject.decodeFound(projects.get(keyId(keys.project(id)))))
    .filter((p): p is Project => isLive(p));
}

/** GET /projects/stats: counts for every project the caller can reach. */
export async function projectStats(ctx: AppContext) {
  const rows = await listProjects(ctx);
  return Promise.all(
    rows.map(async ({ project }) => {
      const { environments, services, servers, groups } = totals(await projectInventory(project.id));
      return { project_id: project.id, environments, services, servers, groups };
    }),
  );
}

/** PATCH /projects/{id}/settings (project.manage); the project as changed, and whether the caller owns it. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const updateProjectSettings = (...args: Parameters<typeof updateProjectSettingsOnce>) =>
  retryWhenStale(() => updateProjectSettingsOnce(...args));

async function updateProjectSettingsOnce(ctx: AppContext, input: { id: string; cost_calc_enabled: boolean }) {
  const access = await accessToProject(input.id, actorAccount(ctx).id);
  access.requireOwnerRight('project.manage');
  const updated_at = ctx.clock.now().toISOString();
  const project: Project = { ...access.project, cost_calc_enabled: input.cost_calc_enabled, updated_at };
  // Setting the value it already has changes nothing an entry would show: no entry.
  const audit =
    project.cost_calc_enabled === access.project.cost_calc_enabled
      ? undefined
      : changeAudit(
          ctx,
          'project',
          'update',
          projectEntity(access.project),
          { before: auditedProject(access.project), after: auditedProject(project) },
          await retentionOfProject(access.project),
        );
  await transact([
    setFieldsStep(
      keys.project(access.project.id),
      { cost_calc_enabled: input.cost_calc_enabled, updated_at, audit_head: audit?.head },
      notFound(PROJECT_NOT_FOUND),
    ),
    ...(audit?.steps ?? []),
  ]);
  return { project, isOwner: access.isOwner };
}

/** GET /projects/{id}/plan: the plan that governs the project's limits, for any member. */
export async function projectPlan(ctx: AppContext, input: { id: string }) {
  const access = await accessToProject(input.id, actorAccount(ctx).id);
  const plan = await planOfProject(access.project);
  return {
    project_id: access.project.id,
    plan_name: plan.name,
    plan_tier: planTier(plan.name),
    is_owner: access.isOwner,
  };
}

/** DELETE /projects/{id} (owner): soft delete; the project leaves lists (stays in syncs), its name is free again and its owner's plan slot is released. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteProject = (...args: Parameters<typeof deleteProjectOnce>) =>
  retryWhenStale(() => deleteProjectOnce(...args));

async function deleteProjectOnce(ctx: AppContext, input: { id: string }): Promise<void> {
  const access = await accessToProject(input.id, actorAccount(ctx).id);
  access.requireOwnerRight('project.delete');
  const { project } = access;
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(
    ctx,
    'project',
    'delete',
    projectEntity(project),
    { before: auditedProject(project), after: null },
    await retentionOfProject(project),
  );
  await transact([
    // The soft delete (the live rule's condition), with the project's latest audit entry.
    setFieldsStep(
      keys.project(project.id),
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(PROJECT_NOT_FOUND),
    ),
    ...audit.steps,
    deleteStep(keys.projectName(project.owner_id, project.name)),
    counterStep(keys.account(project.owner_id), { owned_project_count: -1 }),
  ]);
}

/** GET /projects/members/{id}: a project's members with their e-mail addresses, for any member. */
export async function projectMembers(
  ctx: AppContext,
  input: { id: string },
): Promise<{ user_id: string; email: string }[]> {
  const projectId = input.id;
  await accessToProject(projectId, actorAccount(ctx).id);
  const items = await queryPartition(keys.projectPK(projectId), keys.memberPrefix);
  const ids = items.map((m) => membershipEntity.decode(m).user_id);
  const accounts = await batchGet(ids.map((id) => keys.account(id)));
  return ids
    .map((id) => accountEntity.decodeFound(accounts.get(keyId(keys.account(id)))))
    .filter((a): a is Account => Boolean(a))
    .map((a) => ({ user_id: a.id, email: a.email }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

/** A tier slug for a plan name: `Enterprise+` → `enterprise_plus`. */
export const planTier = (name: string) =>
  name
    .toLowerCase()
    .replace(/\+/g, '_plus')
    .replace(/[^a-z0-9_]+/g, '_');
