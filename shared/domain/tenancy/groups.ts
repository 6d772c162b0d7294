/** Groups: listed by name within an environment, created, renamed, and soft-deleted with every live subgroup under them. */
import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment, envLiveCheck } from './env-scope.ts';
import { accessToItem } from './item-access.ts';
import { retentionOfProject } from './projects.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { lookupStep } from '#db/lookup';
import { claimNameStep, namedWriteSteps } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { allOf, softDeleteStep, visible, isLive, whileLiveStep, visibleFilter } from '#db/live';
import { refsAsRead } from '#db/refs';
import { getItem } from '#db/items';
import { counterStep, putNewStep } from '#db/steps';
import { countIs } from '#db/counter-moves';
import { onContention } from '#db/retry';
import { groupEntity, subgroupEntity, type Group, type Subgroup } from './group-entity.ts';
import {
  auditedGroup,
  byNameThenAge,
  GROUP_NOT_FOUND,
  groupNames,
  type InEnvironment,
  MANAGE,
  NOT_AUTHORIZED_MANAGE_GROUPS,
  NOT_AUTHORIZED_VIEW_GROUPS,
} from './group-rules.ts';
import { renameOrDescribe } from './group-rename.ts';

export type { Group, Subgroup } from './group-entity.ts';

/** The caller's access to a group by its bare id (404 alike for unknown, foreign and deleted ones), to change it (groups.manage). */
const accessToGroup = (ctx: AppContext, id: string) =>
  accessToItem({
    decode: groupEntity.decode,
    id,
    kind: 'group',
    userId: actorAccount(ctx).id,
    notFound: notFound(GROUP_NOT_FOUND),
    permission: MANAGE,
  });

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
