import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../clients';
import { config } from '../config';
import { keys } from '../db/keys';
import type { TransactStep } from '../db/transact';
import { badRequest, notFound } from '../http/errors';
import { keyId, loadAccess } from './access';
import { isLive, type Environment } from './environments';
import { locate, type Key } from './lookup';

/** SPEC's wording (POST /services); every request that names an environment of a project uses it. */
export const ENV_NOT_IN_PROJECT = 'Environment not found or does not belong to project';

/**
 * Access for a request that names a project and one of its environments (POST /groups, GET
 * /subgroups, ...): one BatchGet with the caller's role in that environment and any `extra` items.
 * Refusals in tenancy order: 404 'Project not found', then 400 when the environment is not a live
 * one of that project. Permission checks follow, by the caller.
 */
export async function accessInEnvironment(projectId: string, userId: string, envId: string, extra: Key[] = []) {
  const envKey = keys.environment(projectId, envId);
  const access = await loadAccess(projectId, userId, { envId, extra: [envKey, ...extra] });
  const env = access.extra.get(keyId(envKey)) as Environment | undefined;
  if (!isLive(env)) throw badRequest(ENV_NOT_IN_PROJECT);
  return { access, env: env! };
}

/** Environment-scoped items have sort keys `<KIND>#<environmentId>#<id>` (shared/db/keys.ts). */
export const envIdOfKey = (key: Key) => key.SK.split('#')[1];

/**
 * Access to an environment-scoped item addressed by its bare id (`/groups/{group_id}`): the id
 * lookup, then one BatchGet of project, membership, role in the item's environment, the item and
 * its environment. Unknown, foreign, deleted items and items of deleted environments all give the
 * same 404 `notFoundDetail`.
 */
export async function accessToEnvItem<T>(id: string, kind: string, userId: string, notFoundDetail: string) {
  const notFoundError = notFound(notFoundDetail);
  const { projectId, key } = await locate(id, kind, notFoundError);
  const envId = envIdOfKey(key);
  const envKey = keys.environment(projectId, envId);
  const access = await loadAccess(projectId, userId, { envId, extra: [key, envKey], notFoundError });
  const item = access.extra.get(keyId(key));
  const env = access.extra.get(keyId(envKey)) as Environment | undefined;
  if (!isLive(item) || !isLive(env)) throw notFoundError;
  return { access, item: item as T, env: env! };
}

/** Guards a write in an environment against the environment being deleted concurrently. */
export function envLiveCheck(projectId: string, envId: string): TransactStep {
  return {
    ConditionCheck: {
      TableName: config().TABLE_NAME,
      Key: keys.environment(projectId, envId),
      ConditionExpression: 'attribute_exists(PK) AND deleted_at = :null AND (attribute_not_exists(archived_at) OR archived_at = :null)',
      ExpressionAttributeValues: { ':null': null },
    },
    failWith: badRequest(ENV_NOT_IN_PROJECT),
  };
}

/** Every item of a project's partition whose sort key starts with `skPrefix` (strongly consistent, all pages). */
export async function queryProject<T = Record<string, unknown>>(projectId: string, skPrefix: string): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: config().TABLE_NAME,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': keys.projectPK(projectId), ':sk': skPrefix },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...((out.Items ?? []) as T[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

type Syncable = { updated_at: string; deleted_at?: string | null; archived_at?: string | null };

/**
 * The soft-delete list rule: without `updatedSince`, live items only; with it, items changed since
 * then, deleted ones included. Archived items are never listed.
 */
export function visible<T extends Syncable>(items: T[], updatedSince?: string): T[] {
  return items.filter((i) => !i.archived_at).filter((i) => (updatedSince ? i.updated_at >= updatedSince : !i.deleted_at));
}

/** Builds `SET a = :a, ...` for the fields present in a partial update (undefined = leave as is). */
export function setExpression(fields: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  return { sets, names, values };
}
