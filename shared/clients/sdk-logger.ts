import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * The logger every AWS client of the product (and the local stream reader, which polls) is made with: it logs nothing, as the SDK's default does, but the
 * SDK makes no copy for it. With the default (a logger whose methods drop everything) the SDK still copies every
 * request and answer with its sensitive fields masked, for each call's `logger.info`, and drops the copy: 2.4 % of
 * an end-to-end test worker's CPU (docs/decisions/1023). The SDK's logger middleware calls `info` and `error` only
 * where they exist (`logger?.info?.(…)`), so without them no copy is made; nothing else in the SDK calls them.
 */
export const sdkLogger = { debug() {}, warn() {} } as unknown as NonNullable<DynamoDBClientConfig['logger']>;
