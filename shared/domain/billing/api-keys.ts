import { auditStep } from '#shared/audit';
import * as z from 'zod';
import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { queryPartition } from '#db/query';
import { isLive, softDeleteStep } from '#db/live';
import { counterStep, putNewStep } from '#db/steps';
import { newSecret, sha256 } from '#auth/tokens';
import { notFound, unprocessable } from '#shared/errors';
import { isoTimestamp, name as nameSchema, uuid } from '#shared/schemas';
import { actorAccount, type AppContext } from '#shared/context';
import { activePlan } from './subscriptions.ts';
import { API_KEYS_QUOTA, takeQuotaStep } from './limits.ts';
import { requireFeatures, type PlanSwitch } from './features.ts';
import { apiKeyEntity, type ApiKey, type ApiKeySet } from './api-key-entity.ts';

export * from './api-key-entity.ts';
export * from './features.ts';

/**
 * API keys (SPEC "API key"): named, scoped, expiring keys of the signed-in account, in two sets
 * (`/me/api-keys`, `/me/metrics-api-keys`). The value is shown once, on creation; the item keeps
 * its SHA-256 hash and its first characters. Creating one needs the plan features `crud_pro` and
 * `crud_api` and a slot of `max_api_keys_per_user`, which both sets share (one counter,
 * `api_key_count` on the account item, moved in the creating and the revoking transaction).
 * Listing and revoking need neither: a person can always see and revoke their keys. A key is never a
 * Bearer credential itself (SPEC: 401 'Invalid or expired token'); an `api` key is exchanged for a
 * short-lived access token (api-key-exchange.ts).
 */

export const API_KEY_NOT_FOUND = 'API key not found';
export const EXPIRES_AT_IN_PAST = 'expires_at must be in the future';

/** Per set: the value's recognisable prefix, the scopes a key may carry (in this order) and the scopes of a key created without any. */
export const API_KEY_SET_RULES: Record<
  ApiKeySet,
  { valuePrefix: string; scopes: readonly [string, ...string[]]; defaultScopes: string[]; what: string }
> = {
  api: { valuePrefix: 'ick_', scopes: ['read', 'write'], defaultScopes: ['read'], what: 'API keys' },
  metrics: { valuePrefix: 'icm_', scopes: ['metrics.read'], defaultScopes: ['metrics.read'], what: 'metrics API keys' },
};
/** Both plan features a key needs, checked in this order (the first missing one is named). */
export const API_KEY_FEATURES: readonly PlanSwitch[] = ['crud_pro', 'crud_api'];
/** Random bytes behind the prefix: 256 bits, base64url (43 characters). */
const KEY_BYTES = 32;
/** How much of the value the record keeps to be recognised: the set's prefix and 8 characters (48 of the 256 bits). */
const RECOGNISABLE_CHARS = 8;

/** How many projects one key may be limited to. */
const MAX_KEY_PROJECTS = 20;
export const PROJECT_NOT_REACHABLE = 'Project not found or not accessible';

/**
 * The body of `POST /me/api-keys` (or `/me/metrics-api-keys`): the set's scopes only; `expires_at` null or absent never expires;
 * `project_ids` (API keys only) limits the key's tokens to those projects, null or absent: every project.
 */
export const createApiKeyBody = (set: ApiKeySet) => {
  const body = z.object({
    name: nameSchema(100),
    scopes: z.array(z.enum(API_KEY_SET_RULES[set].scopes)).min(1).max(10).optional(),
    expires_at: isoTimestamp().nullish(),
  });
  return set === 'api' ? body.extend({ project_ids: z.array(uuid()).min(1).max(MAX_KEY_PROJECTS).nullish() }) : body;
};
export type CreateApiKeyInput = z.output<ReturnType<typeof createApiKeyBody>> & {
  key_set: ApiKeySet;
  project_ids?: string[] | null;
  /** Of the projects named, those the caller cannot reach (tenancy composes it: billing knows no projects). */
  unreachableProjects: (userId: string, projectIds: readonly string[]) => Promise<string[]>;
};

const ownKeys = async (userId: string, set: ApiKeySet): Promise<ApiKey[]> =>
  (await queryPartition(keys.account(userId).PK, keys.apiKeyPrefix(set))).map(apiKeyEntity.decode);

/** GET: the caller's live keys of one set, oldest first (expired ones included, with their `expires_at`). */
export async function listApiKeys(ctx: AppContext, input: { key_set: ApiKeySet }): Promise<ApiKey[]> {
  const keysOfSet = await ownKeys(actorAccount(ctx).id, input.key_set);
  return keysOfSet.filter(isLive).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * POST: a new key; the value is returned here and never again. Refusals in order: `expires_at` not
 * in the future (422 naming the field), a plan without `crud_pro`, then without `crud_api` (403 naming
 * it; no active plan has no features), the shared limit (403, taken race-free in the transaction).
 */
export async function createApiKey(
  ctx: AppContext,
  input: CreateApiKeyInput,
): Promise<{ apiKey: ApiKey; key: string }> {
  const account = actorAccount(ctx);
  const rules = API_KEY_SET_RULES[input.key_set];
  const now = ctx.clock.now();
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt <= now)
    throw unprocessable([{ loc: ['body', 'expires_at'], msg: EXPIRES_AT_IN_PAST, type: 'value_error' }]);
  const projectIds = input.project_ids ? [...new Set(input.project_ids)] : null;
  const unreachable = projectIds ? new Set(await input.unreachableProjects(account.id, projectIds)) : new Set<string>();
  if (unreachable.size) {
    throw unprocessable(
      input.project_ids!.flatMap((id, i) =>
        unreachable.has(id)
          ? [{ loc: ['body', 'project_ids', i], msg: PROJECT_NOT_REACHABLE, type: 'value_error' }]
          : [],
      ),
    );
  }
  const plan = (await activePlan(account.id))?.plan;
  requireFeatures(plan, API_KEY_FEATURES, rules.what);

  const key = `${rules.valuePrefix}${newSecret(KEY_BYTES)}`;
  const wanted = new Set(input.scopes ?? rules.defaultScopes);
  const at = now.toISOString();
  const apiKey = apiKeyEntity.create({
    id: ctx.ids.newId(),
    user_id: account.id,
    key_set: input.key_set,
    name: input.name,
    scopes: rules.scopes.filter((s) => wanted.has(s)),
    project_ids: projectIds,
    prefix: key.slice(0, rules.valuePrefix.length + RECOGNISABLE_CHARS),
    key_hash: sha256(key),
    created_at: at,
    updated_at: at,
    expires_at: expiresAt?.toISOString() ?? null,
  });
  await transact([
    takeQuotaStep(keys.account(account.id), 'api_key_count', plan, API_KEYS_QUOTA),
    putNewStep(apiKeyEntity.encode(keys.apiKey(account.id, apiKey.key_set, apiKey.id), apiKey)),
    // Where the key lives, found by its value's hash (the exchange); never changed: the key item decides whether it acts.
    putNewStep({
      ...keys.apiKeyHash(apiKey.key_hash),
      type: 'api_key_lookup',
      user_id: account.id,
      key_set: apiKey.key_set,
      key_id: apiKey.id,
    }),
    // Account-level: the account's own audit log; never the key nor its hash (the deny-list drops `key_hash`).
    ...auditStep(
      ctx,
      {
        action: 'api_key.create',
        entity_type: 'api_key',
        entity_id: apiKey.id,
        project_id: null,
        account_id: account.id,
        after: {
          key_set: apiKey.key_set,
          name: apiKey.name,
          scopes: apiKey.scopes,
          project_ids: apiKey.project_ids,
          prefix: apiKey.prefix,
          expires_at: apiKey.expires_at,
        },
      },
      { mode: 'creation' },
    ),
  ]);
  return { apiKey, key };
}

/**
 * DELETE: revokes one of the caller's keys of this set (soft delete: it leaves lists and gives its
 * slot back in the same transaction). Another account's key, another set's, an unknown or an already
 * revoked one: 404. One transaction, no read: the key is addressed under the caller's own account.
 */
export async function revokeApiKey(ctx: AppContext, input: { key_set: ApiKeySet; key_id: string }): Promise<void> {
  const userId = actorAccount(ctx).id;
  await transact([
    softDeleteStep(
      keys.apiKey(userId, input.key_set, input.key_id),
      ctx.clock.now().toISOString(),
      notFound(API_KEY_NOT_FOUND),
    ),
    counterStep(keys.account(userId), { api_key_count: -1 }),
    // The revocation is the key's last change: kept, like its creation (no read on this path, so no head to move).
    ...auditStep(
      ctx,
      {
        action: 'api_key.revoke',
        entity_type: 'api_key',
        entity_id: input.key_id,
        project_id: null,
        account_id: userId,
        summary: { key_set: input.key_set },
      },
      { mode: 'creation' },
    ),
  ]);
}
