/** Subgroups: listed by name within an environment (optionally one group's), created under a live group (which counts them), renamed, soft-deleted. */
import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment, envLiveCheck } from './env-scope.ts';
import { accessToItem } from './item-access.ts';
import { retentionOfProject } from './projects.ts';
import { changeAudit, creationAudit } from '#shared/audit';
import { lookupStep } from '#db/lookup';
import { claimNameStep, namedWriteSteps } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { visible, isLive, visibleFilter } from '#db/live';
import { referenceStep } from '#db/refs';
import { keyId } from '#db/batch-get';
import { counterStep, putNewStep } from '#db/steps';
import { groupEntity, subgroupEntity, type Subgroup } from './group-entity.ts';
import {
  auditedGroup,
  byNameThenAge,
  GROUP_NOT_IN_ENV,
  type InEnvironment,
  MANAGE,
  NOT_AUTHORIZED_MANAGE_GROUPS,
  NOT_AUTHORIZED_VIEW_GROUPS,
  SUBGROUP_NOT_FOUND,
  subgroupNames,
} from './group-rules.ts';
import { renameOrDescribe } from './group-rename.ts';

/** The caller's access to a subgroup by its bare id (404 alike for unknown, foreign and deleted ones), to change it (groups.manage). */
const accessToSubgroup = (ctx: AppContext, id: string) =>
  accessToItem({
    decode: subgroupEntity.decode,
    id,
    kind: 'subgroup',
    userId: actorAccount(ctx).id,
    notFound: notFound(SUBGROUP_NOT_FOUND),
    permission: MANAGE,
  });

/** The writes that create a subgroup (name claim, item, id lookup); the parent's `subgroup_count` and the environment guard are the caller's. */
export function newSubgroupSteps(sub: Subgroup): TransactStep[] {
  const key = keys.subgroup(sub.project_id, sub.environment_id, sub.id);
  return [
    claimNameStep(subgroupNames(sub.project_id, sub.group_id), sub.name, sub.id),
    putNewStep({ ...key, type: 'subgroup', ...sub }),
    lookupStep(sub.id, sub.project_id, key, 'subgroup'),
  ];
}

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
