import { queryPrefix } from '#db/query';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import type { AppError } from '#http/errors';
import { keyId, loadAccess } from '#domain/tenancy';
import { envIdOfKey } from '#domain/tenancy';
import { isLive, type Environment } from '#domain/tenancy';
import { lookupStep, readLookup, type Key } from '#db/lookup';
import { concurrentChange } from '#db/transact';
import { softDeleteStep } from '#db/soft-delete';

/**
 * What the catalog kinds (services, service floors, networks) share: their items live under
 * `<KIND>#<environmentId>#<id>` in the project's partition, are located by bare id through the id
 * lookup (which also records the environment, so the caller's role there is read in the same
 * BatchGet as the item), and are soft-deleted.
 */

export type CatalogKind = 'service' | 'floor' | 'network';

/** Attributes the lookup item carries besides where the item lives: hints read in round trip 1. */
export type LookupRefs = Record<string, string | null>;

export interface Located {
  projectId: string;
  envId: string;
  key: Key;
  refs: LookupRefs;
}

/** The id lookup of a catalog item, with its environment and optional hints (see services: floor and group ids). */
export function catalogLookupStep(id: string, projectId: string, envId: string, key: Key, kind: CatalogKind, refs: LookupRefs = {}): TransactStep {
  const step = lookupStep(id, projectId, key, kind);
  step.Put!.Item = { ...step.Put!.Item, environment_id: envId, ...refs };
  return step;
}

/**
 * Where an environment-scoped item lives (one strongly consistent GetItem): its project, its
 * environment (recorded on catalog lookups, else read off the sort key) and any hints. An unknown
 * id, or one of another kind, is `notFoundError`.
 */
export async function locateInEnvironment(id: string, kind: string, notFoundError: AppError): Promise<Located> {
  const item = await readLookup(id, kind, notFoundError);
  const { PK: _pk, SK: _sk, project_id, item_pk, item_sk, kind: _k, environment_id, ...refs } = item;
  const key = { PK: item_pk, SK: item_sk };
  return { projectId: project_id, envId: (environment_id as string | undefined) ?? envIdOfKey(key), key, refs: refs as LookupRefs };
}

/**
 * The caller's access to one environment-scoped item (service, floor, network, group, connection, ...): locate (round trip 1), then the project, membership,
 * role in the item's environment, the item, its environment and `extra` keys in one BatchGet
 * (round trip 2). Unknown, foreign, deleted items and items of deleted environments all give
 * `notFoundError`, byte for byte.
 */
export async function accessToCatalogItem<T>(
  id: string,
  kind: string,
  userId: string,
  notFoundError: AppError,
  extra: (located: Located) => Key[] = () => [],
) {
  const located = await locateInEnvironment(id, kind, notFoundError);
  const envKey = keys.environment(located.projectId, located.envId);
  const access = await loadAccess(located.projectId, userId, {
    envId: located.envId,
    extra: [located.key, envKey, ...extra(located)],
    notFoundError,
  });
  const item = access.extra.get(keyId(located.key)) as (T & { deleted_at: string | null }) | undefined;
  const env = access.extra.get(keyId(envKey)) as Environment | undefined;
  if (!isLive(item) || !isLive(env)) throw notFoundError;
  return { access, item: item!, env: env!, located };
}

/** A live item of `kind` among what a BatchGet returned, or undefined. */
export function liveItem<T>(items: Map<string, Record<string, unknown>>, key: Key): T | undefined {
  const item = items.get(keyId(key));
  return isLive(item as { deleted_at?: string | null }) ? (item as T) : undefined;
}

/** Live: exists and not soft-deleted (items of other groups may lack `deleted_at` altogether). */
const LIVE_CONDITION = 'attribute_exists(PK) AND (attribute_not_exists(deleted_at) OR deleted_at = :null)';

/** Guards, inside a transaction, that an item read earlier is still live (a concurrent delete makes the write fail with `failWith`). */
export function stillLiveStep(key: Key, failWith: AppError): TransactStep {
  return { ConditionCheck: { TableName: config().TABLE_NAME, Key: key, ConditionExpression: LIVE_CONDITION, ExpressionAttributeValues: { ':null': null } }, failWith };
}

/**
 * Sets `fields` (and nothing else; an undefined value leaves its field as it is) on a live item;
 * fails with `failWith` when it was deleted meanwhile. The one "patch a live item" write.
 */
export function setFieldsStep(key: Key, fields: Record<string, unknown>, failWith: AppError, extraCondition?: { expression: string; values: Record<string, unknown> }): TransactStep {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':null': null, ...extraCondition?.values };
  const sets = Object.entries(fields).filter(([, value]) => value !== undefined).map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  return {
    Update: {
      TableName: config().TABLE_NAME,
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: extraCondition ? `${LIVE_CONDITION} AND ${extraCondition.expression}` : LIVE_CONDITION,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    failWith,
  };
}

/** Case-insensitive "contains" over optional strings. */
export const containsCi = (haystack: string | null | undefined, needle: string) => Boolean(haystack && haystack.toLowerCase().includes(needle.toLowerCase()));
export const equalsCi = (a: string | null | undefined, b: string) => Boolean(a && a.toLowerCase() === b.toLowerCase());
/** Match-any tag filter, ignoring case. */
export const hasAnyTag = (tags: string[] | undefined, wanted: string[]) => {
  const lower = new Set(wanted.map((t) => t.toLowerCase()));
  return (tags ?? []).some((t) => lower.has(t.toLowerCase()));
};
/** The `location` filter: provider, region or zone contains the text. */
export const atLocation = (i: { provider?: string | null; provider_region?: string | null; provider_zone?: string | null }, text: string) =>
  containsCi(i.provider, text) || containsCi(i.provider_region, text) || containsCi(i.provider_zone, text);

const TRANSACTION_LIMIT = 100;

/**
 * Runs `final` as one transaction, preceded by `cascade` steps (items removed along with the
 * subject). Everything is one transaction when it fits DynamoDB's 100-item limit; a larger cascade
 * is committed in chunks first, so the subject is deleted last and a retry finishes the work.
 */
export async function transactWithCascade(cascade: TransactStep[], final: TransactStep[]): Promise<void> {
  if (cascade.length + final.length <= TRANSACTION_LIMIT) return transact([...final, ...cascade]);
  const head = cascade.slice(0, cascade.length - (TRANSACTION_LIMIT - final.length));
  for (let i = 0; i < head.length; i += TRANSACTION_LIMIT) await transact(head.slice(i, i + TRANSACTION_LIMIT));
  await transact([...final, ...cascade.slice(head.length)]);
}

/** Thrown by a cascade step whose item changed between the read and the write; the operation is re-run. */
export const CASCADE_STALE = concurrentChange();

export async function retryWhenStale<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (err !== CASCADE_STALE || attempt >= attempts) throw err;
    }
  }
}

/**
 * The steps that remove, with an entity, the live connections (either end) and links (either
 * end) touching it: items of the topology group, matched by their documented field names,
 * soft-deleted as that group deletes them; a connection that belongs to a chain leaves it (the
 * chain's `connection_count` drops, one step per chain).
 */
export async function edgeRemovalSteps(projectId: string, envId: string, entityId: string, withLinks: boolean, now: string): Promise<TransactStep[]> {
  const live = '(attribute_not_exists(deleted_at) OR deleted_at = :null)';
  const values = { ':id': entityId, ':null': null };
  const [connections, links] = await Promise.all([
    queryPrefix<Key & { chain_id?: string | null }>(projectId, keys.connectionPrefix(envId), {
      projection: ['PK', 'SK', 'chain_id'],
      filter: `(a_id = :id OR b_id = :id) AND ${live}`,
      values,
    }),
    withLinks
      ? queryPrefix<Key>(projectId, keys.linkPrefix(envId), { projection: ['PK', 'SK'], filter: `(from_service_id = :id OR to_service_id = :id) AND ${live}`, values })
      : Promise.resolve([] as Key[]),
  ]);
  const leaving = new Map<string, number>();
  for (const c of connections) if (c.chain_id) leaving.set(c.chain_id, (leaving.get(c.chain_id) ?? 0) + 1);
  return [
    ...[...connections, ...links].map(({ PK, SK }) => softDeleteStep({ PK, SK }, now, CASCADE_STALE)),
    ...[...leaving].map(([chainId, n]): TransactStep => ({
      Update: {
        TableName: config().TABLE_NAME,
        Key: keys.connectionChain(projectId, envId, chainId),
        UpdateExpression: 'SET connection_count = connection_count - :n, updated_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':n': n, ':now': now },
      },
    })),
  ];
}
