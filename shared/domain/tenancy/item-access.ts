import { keys } from '#db/keys';
import { keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { readLookup, type Key } from '#db/lookup';
import type { DomainError } from '#shared/errors';
import type { Permission } from '#auth/permissions';
import { loadAccess, type ProjectAccess } from './access.ts';
import { environmentEntity, type Environment } from './environment-entity.ts';

/** Environment-scoped items have sort keys `<KIND>#<environmentId>#<id>` (shared/db/keys.ts). */
export const envIdOfKey = (key: Key) => key.SK.split('#')[1];

/** Attributes the lookup item carries besides where the item lives: hints read in round trip 1. */
export type LookupRefs = Record<string, string | null>;

export interface Located {
  projectId: string;
  /** The item's environment: recorded on its lookup (catalog items), else read off its sort key. Meaningless for project-scoped items. */
  envId: string;
  key: Key;
  /** Every other attribute of the lookup item (`environment_id` included when recorded). */
  refs: LookupRefs;
}

/**
 * Where an item addressed by bare id lives (one strongly consistent GetItem): its project, its
 * environment and any hints. An unknown id, or one of another kind, is `notFoundError`.
 */
export async function locateItem(id: string, kind: string, notFoundError: DomainError): Promise<Located> {
  const item = await readLookup(id, kind, notFoundError);
  const { PK: _pk, SK: _sk, project_id, item_pk, item_sk, kind: _k, ...refs } = item;
  const key = { PK: item_pk, SK: item_sk };
  return {
    projectId: project_id,
    envId: (refs.environment_id as string | undefined) ?? envIdOfKey(key),
    key,
    refs: refs as LookupRefs,
  };
}

export interface ItemRequest {
  /** The kind its lookup records ('service', 'invite', ...). */
  kind: string;
  id: string;
  userId: string;
  /** The one refusal of an unknown, foreign or deleted item, of an item of a deleted project and (environment scope) of a deleted environment. */
  notFound: DomainError;
  /**
   * `environment` (the default): the item lives in one environment, which must be live too; the
   * caller's role there is read. `project`: the item belongs to the project as a whole.
   */
  scope?: 'environment' | 'project';
  /** Checked after the 404s (in the item's environment for environment scope); the 403 `detail`. Checks with another order are the caller's. */
  permission?: { key: Permission; detail: string };
  /** Where an environment-scoped item's environment is when neither its lookup nor its key says (undefined: the 404). */
  envOf?: (located: Located) => string | undefined | Promise<string | undefined>;
  /** Keys read in the same BatchGet as the access (found in `access.extra`). */
  extra?: (located: Located) => Key[];
  /**
   * Reads a read route needs once the item is located, sent beside the access BatchGet (the same round
   * trip) and answered as `alongside` only when the access passes: a refusal is the same whatever they read.
   */
  alongside?: (located: Located) => Promise<unknown>;
}

/**
 * How the item enters the domain: its entity's `decode` (which also gives `T`). Without it the item
 * is answered as read, for the kinds that have no entity yet (their callers name `T`).
 */
interface Decoded<T> {
  decode?: (raw: object) => T;
}

export interface ItemAccess<T> {
  access: ProjectAccess;
  item: T;
  located: Located;
  /** What `alongside` read. */
  alongside?: unknown;
}
export interface EnvItemAccess<T> extends ItemAccess<T> {
  env: Environment;
}

/**
 * The one access check of an item addressed by id: locate it (round trip 1), then the project,
 * the caller's membership (and role in the item's environment), the item, its environment and the
 * `extra` keys in one BatchGet (round trip 2). Unknown, foreign and deleted items, items of deleted
 * projects and of deleted environments all give `notFound`, byte for byte; then `permission`.
 */
export async function accessToItem<T>(req: ItemRequest & Decoded<T> & { scope: 'project' }): Promise<ItemAccess<T>>;
export async function accessToItem<T>(
  req: ItemRequest & Decoded<T> & { scope?: 'environment' },
): Promise<EnvItemAccess<T>>;
export async function accessToItem<T>(req: ItemRequest & Decoded<T>): Promise<ItemAccess<T> & { env?: Environment }> {
  const located = await locateItem(req.id, req.kind, req.notFound);
  const inEnv = req.scope !== 'project';
  if (inEnv && req.envOf) {
    const envId = await req.envOf(located);
    if (!envId) throw req.notFound;
    located.envId = envId;
  }
  const envKey = inEnv ? keys.environment(located.projectId, located.envId) : undefined;
  // Settled, so that a refusal below leaves no rejected promise behind.
  const alongside = req.alongside?.(located).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const access = await loadAccess(located.projectId, req.userId, {
    envId: inEnv ? located.envId : undefined,
    extra: [located.key, ...(envKey ? [envKey] : []), ...(req.extra?.(located) ?? [])],
    notFoundError: req.notFound,
  });
  const raw = access.extra.get(keyId(located.key));
  const env = envKey ? environmentEntity.decodeFound(access.extra.get(keyId(envKey))) : undefined;
  if (!raw || !isLive(raw) || (envKey && !isLive(env))) throw req.notFound;
  const item = req.decode ? req.decode(raw) : (raw as T);
  if (req.permission) access.require(req.permission.key, req.permission.detail, inEnv ? located.envId : undefined);
  const read = await alongside;
  if (read && 'error' in read) throw read.error;
  return { access, item, env, located, ...(read ? { alongside: read.value } : {}) };
}
