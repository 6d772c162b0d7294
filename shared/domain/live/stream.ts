import { errorFields, log } from '#shared/log';
import type { AppContext } from '#shared/context';
import { changesOf, LIVE_ITEM_TYPES, type EntityChange, type StreamRecord } from './changes.ts';
import { recordChanges } from './record.ts';
import { closeLost, fanOut } from './connections.ts';

/**
 * The table stream's live part (the outbox function in the cloud, the local runtime's stream reader):
 * numbers and keeps each environment's item changes, sends them to its followers, and closes the
 * connections of accounts whose access changed and no longer holds. A record of a kind that decides
 * access (a membership, a role in an environment, a session, an account, an API key) makes its
 * account's connections be judged again at once (docs/decisions/0986).
 */

/** Stored item types whose change may take an account's access away. */
const ACCESS_ITEM_TYPES = [
  'member',
  'membership',
  'env_role',
  'custom_role_assignment',
  'session',
  'account',
  'api_key',
];

/** Every stored item type the live part reads off the stream (the cloud's stream filter lets these through). */
export const LIVE_STREAM_TYPES = [...LIVE_ITEM_TYPES, ...ACCESS_ITEM_TYPES];

function accountOf(image: Record<string, unknown> | undefined): string | undefined {
  if (!image || !ACCESS_ITEM_TYPES.includes(String(image.type))) return undefined;
  if (typeof image.user_id === 'string') return image.user_id;
  const pk = String(image.PK ?? '');
  return pk.startsWith('USER#') ? pk.slice('USER#'.length) : undefined;
}

/**
 * Handles a batch of stream records in order. Answers the record to resume from when an environment's
 * changes could not be kept (the stream delivers from there again; what was counted is not counted
 * twice), else undefined. A message that could not be sent is not retried: its client sees the gap in
 * `seq` and resumes with `since`.
 */
export async function liveFromStream(ctx: AppContext, records: StreamRecord[]): Promise<string | undefined> {
  const byEnv = new Map<string, EntityChange[]>();
  for (const c of await changesOf(records, ctx.clock.now())) {
    const list = byEnv.get(c.envId) ?? [];
    list.push(c);
    byEnv.set(c.envId, list);
  }
  const failed: string[] = [];
  await Promise.all(
    [...byEnv].map(async ([envId, changes]) => {
      let messages: Awaited<ReturnType<typeof recordChanges>>;
      try {
        messages = await recordChanges(envId, changes, ctx.clock.now());
      } catch (err) {
        log.error('live changes not recorded; the stream delivers them again', { env_id: envId, ...errorFields(err) });
        failed.push(changes[0].source);
        return;
      }
      await fanOut(ctx, envId, messages).catch((err) =>
        log.warn('live changes not sent', { env_id: envId, ...errorFields(err) }),
      );
    }),
  );
  const accounts = new Set(
    records.flatMap((r) => [accountOf(r.newImage), accountOf(r.oldImage)]).filter((a) => a !== undefined),
  );
  if (accounts.size)
    await closeLost(ctx, [...accounts]).catch((err) => log.warn('live connections not judged', errorFields(err)));
  return failed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
}
