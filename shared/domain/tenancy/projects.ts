import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { invalid, forbidden, notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { canCreateProjects, getAccount, type Account } from '#domain/identity';
import { OWNER_REQUIRED, PROJECT_NOT_FOUND, type Membership, type ProjectAccess } from './access';
import { FREE_PLAN_ID, getPlan, type Plan, activePlan, quotaOf, quotaReached, takeQuotaStep } from '#domain/billing';
import { queryPartition } from '#db/query';
import { compareText } from '#shared/text';
import { batchGet, keyId } from '#db/batch-get';
import { softDeleteStep } from '#db/live';
import { counterStep } from '#db/steps';

export interface Project {
  id: string;
  identifier: string;
  name: string;
  cost_calc_enabled: boolean;
  /** The account whose plan governs this project's limits (its creating owner). Internal. */
  owner_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Quota counters, each changed in the same transaction as what it counts. */
  env_count: number;
  service_count: number;
  project_user_count: number;
  custom_role_count: number;
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
 * Creates a project with the caller (or, for staff, `creator_user_id`) as owner. Refusals in SPEC's
 * order: not a customer, no active subscription, project limit, creating for someone else.
 */
export async function createProject(caller: Account, input: { name: string; creator_user_id?: string | null }, ctx: AppContext) {
  const isStaff = caller.is_staff || caller.is_superuser;
  const forOther = Boolean(input.creator_user_id && input.creator_user_id !== caller.id);
  let owner = caller;
  if (forOther && isStaff) {
    const target = await getAccount(input.creator_user_id!);
    if (!target) throw notFound('Owner user not found');
    owner = target;
  }
  if (!canCreateProjects(owner)) throw forbidden('You are not allowed to create projects');
  const active = await activePlan(owner.id);
  if (!active) throw forbidden('Active subscription required to create projects. Please choose a plan.');
  const limit = quotaOf(active.plan, 'projects');
  const owned = (owner as Account & { owned_project_count?: number }).owned_project_count ?? 0;
  if (limit !== null && owned >= limit) throw quotaReached(active.plan, 'projects', limit);
  if (forOther && !isStaff) throw forbidden('You are not allowed to create projects for other users');

  const now = ctx.clock.now().toISOString();
  const project: Project = {
    id: ctx.ids.newId(), identifier: ctx.ids.newId(), name: input.name.trim(), cost_calc_enabled: false, owner_id: owner.id,
    created_at: now, updated_at: now, deleted_at: null, env_count: 0, service_count: 0, project_user_count: 0, custom_role_count: 0,
  };
  await transact([
    takeQuotaStep(keys.account(owner.id), 'owned_project_count', active.plan, 'projects'),
    {
      Put: { Item: { ...keys.projectName(owner.id, project.name), project_id: project.id }, ConditionExpression: 'attribute_not_exists(PK)' },
      failWith: invalid(PROJECT_NAME_TAKEN),
    },
    { Put: { Item: { ...keys.project(project.id), type: 'project', ...project }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ...membershipSteps(project.id, owner.id, 'owner', now),
  ]);
  return { project, isOwner: owner.id === caller.id };
}

/** A membership and its user-side mirror, written together. */
export function membershipSteps(projectId: string, userId: string, role: Membership['role'], now: string): TransactStep[] {
  const membership: Membership = { project_id: projectId, user_id: userId, role, created_at: now };
  return [
    {
      Put: { Item: { ...keys.member(projectId, userId), type: 'member', ...membership }, ConditionExpression: 'attribute_not_exists(PK)' },
      failWith: invalid('Membership already present'),
    },
    { Put: { Item: { ...keys.membership(userId, projectId), type: 'membership', project_id: projectId, role } } },
  ];
}

/** The caller's projects with their role; soft-deleted ones only when syncing (`updatedSince`). */
export async function listProjects(userId: string, updatedSince?: string) {
  const items = await queryPartition(keys.account(userId).PK, keys.membershipPrefix);
  const memberships = items as { project_id: string; role: Membership['role'] }[];
  const projects = await batchGet(memberships.map((m) => keys.project(m.project_id)));
  return memberships
    .map((m) => ({ project: projects.get(keyId(keys.project(m.project_id))) as Project | undefined, isOwner: m.role === 'owner' }))
    .filter((r): r is { project: Project; isOwner: boolean } => Boolean(r.project))
    .filter(({ project }) => (updatedSince ? project.updated_at >= updatedSince : !project.deleted_at))
    .sort((a, b) => Number(b.isOwner) - Number(a.isOwner) || compareText(a.project.name, b.project.name));
}

export async function updateProjectSettings(access: ProjectAccess, costCalcEnabled: boolean, ctx: AppContext): Promise<Project> {
  access.require('project.manage', OWNER_REQUIRED);
  const updated_at = ctx.clock.now().toISOString();
  await transact([
    {
      Update: {
        Key: keys.project(access.project.id),
        UpdateExpression: 'SET cost_calc_enabled = :c, updated_at = :u',
        ConditionExpression: 'attribute_not_exists(deleted_at) OR deleted_at = :null',
        ExpressionAttributeValues: { ':c': costCalcEnabled, ':u': updated_at, ':null': null },
      },
      failWith: notFound(PROJECT_NOT_FOUND),
    },
  ]);
  return { ...access.project, cost_calc_enabled: costCalcEnabled, updated_at };
}

/** Soft delete: the project leaves lists (stays in syncs), its name is free again and its owner's plan slot is released. */
export async function deleteProject(access: ProjectAccess, ctx: AppContext): Promise<void> {
  access.requireOwner();
  const { project } = access;
  const now = ctx.clock.now().toISOString();
  await transact([
    softDeleteStep(keys.project(project.id), now, notFound(PROJECT_NOT_FOUND)),
    { Delete: { Key: keys.projectName(project.owner_id, project.name) } },
    counterStep(keys.account(project.owner_id), { owned_project_count: -1 }),
  ]);
}

export async function projectMembers(projectId: string): Promise<{ user_id: string; email: string }[]> {
  const items = await queryPartition(keys.projectPK(projectId), keys.memberPrefix);
  const ids = items.map((m) => m.user_id as string);
  const accounts = await batchGet(ids.map((id) => keys.account(id)));
  return ids
    .map((id) => accounts.get(keyId(keys.account(id))) as Account | undefined)
    .filter((a): a is Account => Boolean(a))
    .map((a) => ({ user_id: a.id, email: a.email }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

/** A tier slug for a plan name: `Enterprise+` → `enterprise_plus`. */
export const planTier = (name: string) => name.toLowerCase().replace(/\+/g, '_plus').replace(/[^a-z0-9_]+/g, '_');
