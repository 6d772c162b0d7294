import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { currentScope } from '../invocation.ts';
import { isOutage } from '../outage.ts';
import { captured } from '../tracing.ts';
import { lazyClient, onReset } from './lazy.ts';
import { sdkLogger } from './sdk-logger.ts';

/**
 * Whether the running invocation is one nobody waits on (a queue's worker, a schedule, a stream):
 * its calls may take longer to get through an outage than a request's, which answers 503 instead.
 */
export const nobodyWaits = (): boolean => {
  const d = currentScope()?.dimensions;
  return !!d && ('worker' in d || 'schedule' in d || 'stream' in d);
};

/** Attempts of one AWS call made where nobody waits. */
export const BACKGROUND_ATTEMPTS = 10;
/** Attempts of one AWS call made by a request (the SDK's default for DynamoDB): then the pipeline's 503 with Retry-After. */
export const REQUEST_ATTEMPTS = 4;
/** Full-jitter back-off: doubling from these bases (the SDK's for DynamoDB: 25 ms, throttled 1 s), capped at BACKOFF_CAP_MS. */
const BASE_MS = 50;
const THROTTLED_BASE_MS = 250;
const BACKOFF_CAP_MS = 1_000;

type RetryStrategy = Extract<NonNullable<DynamoDBClientConfig['retryStrategy']>, { acquireInitialRetryToken: unknown }>;
type Token = Awaited<ReturnType<RetryStrategy['acquireInitialRetryToken']>>;
const token = (count: number, delay: number): Token => ({ getRetryCount: () => count, getRetryDelay: () => delay });

/**
 * An outage, but not a cancelled transaction: `transact` tries that again itself, with a new token (a retry of the
 * cancelled call would carry the old one).
 */
const retried = (err: unknown) =>
  isOutage(err) && (err as { name?: string } | undefined)?.name !== 'TransactionCanceledException';

/**
 * The retry strategy of every AWS client (docs/decisions/0164-jobs-through-the-harsh-mix-the-sdk-retry-quota.md
 * and 0167-requests-retry-without-a-shared-quota-too.md): up to `attempts` attempts of a call while its failure is an
 * outage (`isOutage`: throttled, 5xx, timed out; a cancelled transaction is left to `transact`), waiting full-jitter
 * back-off between them. Unlike the SDK's standard strategy it keeps no retry quota shared by the process: under a
 * sustained failure rate (half of the attempts) the quota runs dry within seconds and then no call is retried at
 * all, so a job of a hundred calls could not finish however often its message came back, and a create whose write
 * took effect but whose answer was lost could not be retried with its transaction's token (a 503, then the
 * client's retry made it twice). What bounds these retries is each call's attempts and back-off.
 */
const quotaFreeRetries = (attempts: number): RetryStrategy => ({
  acquireInitialRetryToken: async () => token(0, 0),
  async refreshRetryTokenForRetry(previous, info) {
    const retries = previous.getRetryCount() + 1;
    if (retries >= attempts || !retried(info.error)) throw new Error('No retry token available');
    const base = info.errorType === 'THROTTLING' ? THROTTLED_BASE_MS : BASE_MS;
    return token(retries, Math.random() * Math.min(BACKOFF_CAP_MS, base * 2 ** (retries - 1)));
  },
  recordSuccess: () => {},
});

/** Where nobody waits: at most about 8 s in all, 4 s on average through a whole outage. */
export const backgroundRetries = quotaFreeRetries(BACKGROUND_ATTEMPTS);
/** A request's: at most about 350 ms of waiting before its 503. */
export const requestRetries = quotaFreeRetries(REQUEST_ATTEMPTS);

/** The settings a client is made with: its retries (`requestRetries` or `backgroundRetries`), and the SDK's logger. */
export type ClientSettings = { retryStrategy: RetryStrategy; logger: typeof sdkLogger };
const clientSettings = (retryStrategy: RetryStrategy): ClientSettings => ({ retryStrategy, logger: sdkLogger });

/**
 * A client made per kind of invocation: requests retry a few times (`requestRetries`, then the pipeline's 503
 * with Retry-After); workers, schedules and streams retry through an outage longer (`backgroundRetries`). Each is made on first use: a Lambda function makes only the one it uses.
 */
export function byInvocation<T extends { destroy(): void }>(make: (settings: ClientSettings) => T): () => T {
  const forRequests = lazyClient(() => make(clientSettings(requestRetries)));
  const forBackground = lazyClient(() => make(clientSettings(backgroundRetries)));
  return () => (nobodyWaits() ? forBackground() : forRequests());
}

/**
 * `byInvocation` for a client whose SDK package is imported at its first use (a dynamic import stays one in the
 * bundle, so a function's cold start does not pay for a client most of its requests never use): the SDK module
 * and the client of the running kind of invocation.
 */
export function lazyByInvocation<M, T extends { destroy(): void }>(
  load: () => Promise<M>,
  make: (sdk: M, settings: ClientSettings) => T,
): () => Promise<{ sdk: M; client: T }> {
  const made = new Map<boolean, Promise<{ sdk: M; client: T }>>();
  onReset(() => {
    for (const m of made.values()) void m.then(({ client }) => client.destroy());
    made.clear();
  });
  return () => {
    const background = nobodyWaits();
    let client = made.get(background);
    if (!client) {
      client = load().then((sdk) => ({
        sdk,
        client: captured(make(sdk, clientSettings(background ? backgroundRetries : requestRetries))),
      }));
      made.set(background, client);
    }
    return client;
  };
}
