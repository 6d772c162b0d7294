import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment, envLiveCheck } from './env-scope';
import { accessToItem } from './item-access';
import type { ProjectAccess } from './access';
import { retentionOfProject } from './projects';
import { changeAudit, creationAudit } from '#shared/audit';
import { lookupStep } from '#db/lookup';
import { claimNameStep, namedWriteSteps, type NameScope } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { compareText } from '#shared/text';
import { allOf, softDeleteStep, visible, isLive, whileLiveStep, visibleFilter } from '#db/live';
import { referenceStep, refsAsRead } from '#db/refs';
import { getItem } from '#db/items';
import { keyId, type Key } from '#db/batch-get';
import { counterStep, putNewStep } from '#db/steps';
import { countIs } from '#db/counter-moves';
import { onContention } from '#db/retry';
import { text } from '#shared/schemas';
import { groupEntity, subgroupEntity, type Group, type Subgroup } from './group-entity';

export type { Group, Subgroup } from './group-entity';

/** What an audit entry records of a group or subgroup: what its readers see of it. */
const auditedGroup = (g: Group | Subgroup) => {
  const { updated_at: _u, deleted_at: _d, ...shown } = 'group_id' in g ? toSubgroupOut(g) : toGroupOut(g);
  return shown;
};
const kindOf = (g: Group | Subgroup) => ('group_id' in g ? 'subgroup' : 'group');

export const toGroupOut = (g: Group) => ({
  id: g.id,
  project_id: g.project_id,
  environment_id: g.environment_id,
  name: g.name,
  description: g.description ?? null,
  updated_at: g.updated_at,
  deleted_at: g.deleted_at,
});
export const toSubgroupOut = (s: Subgroup) => ({
  id: s.id,
  project_id: s.project_id,
  environment_id: s.environment_id,
  group_id: s.group_id,
  name: s.name,
  description: s.description ?? null,
  updated_at: s.updated_at,
  deleted_at: s.deleted_at,
});

export const GROUP_NOT_FOUND = 'Group not found';
export const SUBGROUP_NOT_FOUND = 'Subgroup not found';
/** A subgroup's parent must be a live group of the same environment. */
export const GROUP_NOT_IN_ENV = 'Group not found or does not belong to environment';
/** Groups and subgroups share the groups.* permissions. */
export const NOT_AUTHORIZED_VIEW_GROUPS = 'Not authorized to view groups in this environment';
export const NOT_AUTHORIZED_MANAGE_GROUPS = 'Not authorized to manage groups in this environment';

/** A group or subgroup description (POST and PATCH /groups, /subgroups; import documents). */
export const groupDescription = text(2000);

/** Group names are unique per environment (a name sentinel, ignoring case). */
export const groupNames = (projectId: string, envId: string): NameScope => ({
  projectId,
  kind: 'GROUP',
  scopeId: envId,
  takenDetail: 'Group with this name already exists in this environment',
});
export const subgroupNames = (projectId: string, groupId: string): NameScope => ({
  projectId,
  kind: 'SUBGROUP',
  scopeId: groupId,
  takenDetail: 'Subgroup with this name already exists in this group',
});

/** Alphabetical, ignoring case; equal names (subgroups of different parents) in creation order. */
const byNameThenAge = (a: { name: string; created_at: string }, b: { name: string; created_at: string }) =>
  compareText(a.name, b.name) || a.created_at.localeCompare(b.created_at);

/** The caller's access to a group or subgroup by its bare id (404 alike for unknown, foreign and deleted ones), to change it (groups.manage). */
const MANAGE = { key: 'groups.manage', detail: NOT_AUTHORIZED_MANAGE_GROUPS } as const;
const accessToGroup = (ctx: AppContext, id: string) =>
  accessToItem({
    decode: groupEntity.decode,
    id,
    kind: 'group',
    userId: actorAccount(ctx).id,
    notFound: notFound(GROUP_NOT_FOUND),
    permission: MANAGE,
  });
const accessToSubgroup = (ctx: AppContext, id: string) =>
  accessToItem({
    decode: subgroupEntity.decode,
    id,
    kind: 'subgroup',
    userId: actorAccount(ctx).id,
    notFound: notFound(SUBGROUP_NOT_FOUND),
    permission: MANAGE,
  });

interface InEnvironment {
  project_id: string;
  environment_id: string;
}

/** GET /groups: an environment's groups, by name (groups.view there). */
export async function listGroups(ctx: AppContext, input: InEnvironment & { updated_since?: string }): Promise<Group[]> {
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id);
  access.require('groups.view', NOT_AUTHORIZED_VIEW_GROUPS, env.id);
  const groups = visible(
    (await queryPrefix(env.project_id, keys.groupPrefix(env.id), visibleFilter(input.updated_since))).map(
      groupEntity.decode,
    ),
    input.updated_since,
  );
  return groups.sort(byNameThenAge);
}

/** The writes that create a group (name claim, item, id lookup); the environment guard is the caller's. */
export function newGroupSteps(group: Group): TransactStep[] {
  const key = keys.group(group.project_id, group.environment_id, group.id);
  return [
    claimNameStep(groupNames(group.project_id, group.environment_id), group.name, group.id),
    putNewStep({ ...key, type: 'group', ...group }),
    lookupStep(group.id, group.project_id, key, 'group'),
  ];
}

/** The writes that create a subgroup (name claim, item, id lookup); the parent's `subgroup_count` and the environment guard are the caller's. */
export function newSubgroupSteps(sub: Subgroup): TransactStep[] {
  const key = keys.subgroup(sub.project_id, sub.environment_id, sub.id);
  return [
    claimNameStep(subgroupNames(sub.project_id, sub.group_id), sub.name, sub.id),
    putNewStep({ ...key, type: 'subgroup', ...sub }),
    lookupStep(sub.id, sub.project_id, key, 'subgroup'),
  ];
}

export async function createGroup(
  ctx: AppContext,
  input: InEnvironment & { name: string; description?: string | null },
): Promise<Group> {
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id);
  access.require('groups.manage', NOT_AUTHORIZED_MANAGE_GROUPS, env.id);
  const now = ctx.clock.now().toISOString();
  const group: Group = {
    id: ctx.ids.newId(),
    project_id: env.project_id,
    environment_id: env.id,
    name: input.name,
    description: input.description ?? null,
    subgroup_count: 0,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await transact([
    envLiveCheck(group.project_id, env.id),
    ...newGroupSteps(group),
    ...creationAudit(ctx, 'group', group, auditedGroup(group)),
  ]);
  return group;
}

/** A rename racing another change of the name (or the delete) is re-run from a new read (unique-names.ts). */
export const updateGroup = (
  ctx: AppContext,
  input: { id: string; name?: string; description?: string | null },
): Promise<Group> =>
  retryWhenStale(async () => {
    const { id, ...patch } = input;
    const { access, item: group } = await accessToGroup(ctx, id);
    const key = keys.group(group.project_id, group.environment_id, group.id);
    return renameOrDescribe(
      ctx,
      access,
      group,
      { key, names: groupNames(group.project_id, group.environment_id), gone: GROUP_NOT_FOUND },
      patch,
    );
  });

/** PATCH of a group or subgroup (groups.manage in its environment, checked on access): a new name moves its name claim; the description is set as given. */
async function renameOrDescribe<T extends Group | Subgroup>(
  ctx: AppContext,
  access: ProjectAccess,
  item: T,
  where: { key: Key; names: NameScope; gone: string },
  patch: { name?: string; description?: string | null },
): Promise<T> {
  const updated: T = { ...item, ...definedOnly(patch), updated_at: ctx.clock.now().toISOString() };
  const changed = updated.name !== item.name || (updated.description ?? null) !== (item.description ?? null);
  const audit = changed
    ? changeAudit(
        ctx,
        kindOf(item),
        'update',
        item,
        { before: auditedGroup(item), after: auditedGroup(updated) },
        await retentionOfProject(access.project),
      )
    : undefined;
  await transact([
    ...namedWriteSteps(
      where.names,
      { ...item, key: where.key },
      { name: patch.name, description: patch.description, updated_at: updated.updated_at, audit_head: audit?.head },
      notFound(where.gone),
    ),
    ...(audit?.steps ?? []),
  ]);
  return updated;
}

/** Most subgroups soft-deleted per transaction (DynamoDB allows 100 writes; the group and its name take two). */
const CASCADE_CHUNK = 90;
/** Thrown (by identity) when a cascade step finds the group or a subgroup changed under it: start over. */
const CHANGED = concurrentChange();

/**
 * Soft-deletes a group and, with it, every live subgroup; the group's name is free again. The
 * group's `subgroup_count` must match what was cascaded, so a subgroup created concurrently is
 * never left alive under a deleted group (the cascade starts over). Up to 90 subgroups go in the
 * group's own transaction; beyond that, earlier transactions take the surplus first, so an
 * interruption leaves a live group that can simply be deleted again.
 */
export async function deleteGroup(ctx: AppContext, input: { id: string }): Promise<void> {
  const { access, item: read } = await accessToGroup(ctx, input.id);
  const groupKey = keys.group(read.project_id, read.environment_id, read.id);
  const days = await retentionOfProject(access.project);
  // A cascade step that found the group or a subgroup changed (CHANGED) starts over from a fresh read.
  await onContention(
    async (attempt) => {
      const group = attempt === 1 ? read : groupEntity.decodeFound(await getItem(groupKey));
      if (!group || !isLive(group)) throw notFound(GROUP_NOT_FOUND);
      const now = ctx.clock.now().toISOString();
      const subgroups = (await queryPrefix(group.project_id, keys.subgroupPrefix(group.environment_id)))
        .map(subgroupEntity.decode)
        .filter((s) => s.group_id === group.id && isLive(s));
      const chunks: Subgroup[][] = [];
      for (let i = 0; i < subgroups.length; i += CASCADE_CHUNK) chunks.push(subgroups.slice(i, i + CASCADE_CHUNK));
      const last = chunks.pop() ?? [];
      const subgroupSteps = (chunk: Subgroup[]): TransactStep[] =>
        chunk.map((s) => softDeleteStep(keys.subgroup(s.project_id, s.environment_id, s.id), now, CHANGED));
      for (const chunk of chunks) {
        await transact([
          whileLiveStep(counterStep(groupKey, { subgroup_count: -chunk.length }), CHANGED),
          ...subgroupSteps(chunk),
        ]);
      }
      // The group's entry lists the subgroups deleted with it (their own entries would not fit a 90-subgroup chunk).
      const audit = changeAudit(ctx, 'group', 'delete', group, { before: auditedGroup(group), after: null }, days, {
        summary: { deleted_subgroup_ids: subgroups.map((s) => s.id) },
      });
      await transact([
        // Its subgroups as read (none created since: refs.ts) and counted, and its name as read (a rename meanwhile would leave the new name claimed).
        ...namedWriteSteps(
          groupNames(group.project_id, group.environment_id),
          { ...group, key: groupKey },
          { deleted_at: now, updated_at: now, subgroup_count: 0, audit_head: audit.head },
          CHANGED,
          {
            stale: CHANGED,
            also: allOf(countIs('subgroup_count', last.length), refsAsRead(group)),
          },
        ),
        ...subgroupSteps(last),
        ...audit.steps,
      ]);
    },
    (err) => err === CHANGED || err === CASCADE_STALE,
  );
}

// ---- subgroups -------------------------------------------------------------------------------

/** GET /subgroups: an environment's subgroups, optionally of one group (groups.view there). */
export async function listSubgroups(
  ctx: AppContext,
  input: InEnvironment & { group_id?: string; updated_since?: string },
): Promise<Subgroup[]> {
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id);
  access.require('groups.view', NOT_AUTHORIZED_VIEW_GROUPS, env.id);
  const all = (await queryPrefix(env.project_id, keys.subgroupPrefix(env.id), visibleFilter(input.updated_since))).map(
    subgroupEntity.decode,
  );
  return visible(
    all.filter((s) => !input.group_id || s.group_id === input.group_id),
    input.updated_since,
  ).sort(byNameThenAge);
}

/** POST /subgroups: the caller's access to the environment is read with the parent group (one BatchGet), which must be live there (400). */
export async function createSubgroup(
  ctx: AppContext,
  input: InEnvironment & { group_id: string; name: string; description?: string | null },
): Promise<Subgroup> {
  const groupKey = keys.group(input.project_id, input.environment_id, input.group_id);
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id, [
    groupKey,
  ]);
  const parent = groupEntity.decodeFound(access.extra.get(keyId(groupKey)));
  if (!isLive(parent)) throw invalid(GROUP_NOT_IN_ENV);
  access.require('groups.manage', NOT_AUTHORIZED_MANAGE_GROUPS, env.id);
  const now = ctx.clock.now().toISOString();
  const sub: Subgroup = {
    id: ctx.ids.newId(),
    project_id: env.project_id,
    environment_id: env.id,
    group_id: parent!.id,
    name: input.name,
    description: input.description ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await transact([
    envLiveCheck(sub.project_id, env.id),
    // The parent counts its live subgroups, so deleting it never leaves one alive (see deleteGroup).
    referenceStep(groupKey, invalid(GROUP_NOT_IN_ENV), { subgroup_count: 1 }),
    ...newSubgroupSteps(sub),
    ...creationAudit(ctx, 'subgroup', sub, auditedGroup(sub)),
  ]);
  return sub;
}

export const updateSubgroup = (
  ctx: AppContext,
  input: { id: string; name?: string; description?: string | null },
): Promise<Subgroup> =>
  retryWhenStale(async () => {
    const { id, ...patch } = input;
    const { access, item: sub } = await accessToSubgroup(ctx, id);
    const key = keys.subgroup(sub.project_id, sub.environment_id, sub.id);
    return renameOrDescribe(
      ctx,
      access,
      sub,
      { key, names: subgroupNames(sub.project_id, sub.group_id), gone: SUBGROUP_NOT_FOUND },
      patch,
    );
  });

/** A delete racing a rename is re-run from a new read (unique-names.ts). */
export const deleteSubgroup = (ctx: AppContext, input: { id: string }): Promise<void> =>
  retryWhenStale(async () => {
    const { access, item: sub } = await accessToSubgroup(ctx, input.id);
    const now = ctx.clock.now().toISOString();
    const audit = changeAudit(
      ctx,
      'subgroup',
      'delete',
      sub,
      { before: auditedGroup(sub), after: null },
      await retentionOfProject(access.project),
    );
    await transact([
      // The soft delete (the live rule's condition, its name as read), with the subgroup's latest audit entry.
      ...namedWriteSteps(
        subgroupNames(sub.project_id, sub.group_id),
        { ...sub, key: keys.subgroup(sub.project_id, sub.environment_id, sub.id) },
        { deleted_at: now, updated_at: now, audit_head: audit.head },
        notFound(SUBGROUP_NOT_FOUND),
      ),
      ...audit.steps,
      counterStep(keys.group(sub.project_id, sub.environment_id, sub.group_id), { subgroup_count: -1 }),
    ]);
  });

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
