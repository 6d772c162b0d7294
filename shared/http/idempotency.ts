import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { IdempotencyAlreadyInProgressError, IdempotencyInconsistentStateError, IdempotencyValidationError } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { TABLE } from '#db/table';
import { keys } from '#db/keys';
import { DomainError, unprocessable } from '#shared/errors';
import { keyIssue } from './idempotency-key';

type Result = APIGatewayProxyStructuredResultV2;

/**
 * `Idempotency-Key` on authenticated POSTs (Stripe's and the IETF draft's semantics, on Powertools
 * Idempotency with its DynamoDB persistence layer): the first request with a key runs and its
 * answer is kept 24 hours; a retry with the same key and the same request gets that answer again
 * (`Idempotent-Replayed: true`) without running; the same key with another request is 422; a retry
 * while the first is still running is 409 with `Retry-After`. A refusal (4xx) or failure is not
 * kept, so a corrected retry may use the same key. Keys are the caller's own: one account cannot
 * replay another's answers. Loaded only when a request carries the header.
 */
export const KEY_REUSED = 'Idempotency-Key was already used with a different request';
export const KEY_IN_FLIGHT = 'A request with this Idempotency-Key is still being processed; retry shortly';
const KEEP_SECONDS = 24 * 60 * 60;

/** Records live in the one table, one partition per key (not the library's single static partition). */
class TablePersistence extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    return marshall(keys.idempotencyRecord(idempotencyKey));
  }
}

let persistence: TablePersistence | undefined;
const store = () =>
  (persistence ??= new TablePersistence({
    tableName: config().TABLE_NAME,
    keyAttr: TABLE.partitionKey,
    sortKeyAttr: TABLE.sortKey,
    expiryAttr: TABLE.ttlAttribute,
    awsSdkV3Client: ddb() as never,
  }));

/** What identifies "the same request": its method, path, query and validated body (a multipart file by its digest, so a retry's new boundary is still the same request). */
export interface RequestFingerprint {
  method: string;
  path: string;
  query: string;
  body: unknown;
}

const digestFiles = (_key: string, value: unknown) =>
  value && typeof value === 'object' && Buffer.isBuffer((value as { content?: unknown }).content)
    ? { ...value, content: createHash('sha256').update((value as { content: Buffer }).content).digest('hex') }
    : value;

/** Runs `answer` once per (account, key) within 24 hours; see the module comment. */
export async function once(
  scope: { accountId: string; key: string },
  request: RequestFingerprint,
  context: Context | undefined,
  answer: () => Promise<Result>,
): Promise<Result> {
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'scope',
    payloadValidationJmesPath: 'request',
    expiresAfterSeconds: KEEP_SECONDS,
    hashFunction: 'sha256',
    throwOnNoIdempotencyKey: true,
  });
  if (context?.getRemainingTimeInMillis) idempotencyConfig.registerLambdaContext(context);
  let ran = false;
  const run = makeIdempotent(
    async (_input: { scope: string; request: string }) => {
      ran = true;
      return answer();
    },
    { persistenceStore: store(), config: idempotencyConfig, keyPrefix: 'IDEMPOTENCY' },
  );
  try {
    const result = await run({ scope: `${scope.accountId} ${scope.key}`, request: JSON.stringify(request.body, digestFiles) + ` ${request.method} ${request.path}?${request.query}` });
    return ran ? result : { ...result, headers: { ...result.headers, 'idempotent-replayed': 'true' } };
  } catch (err) {
    if (err instanceof IdempotencyValidationError) throw unprocessable([keyIssue(KEY_REUSED, 'idempotency_key_reused')]);
    // The first request is still running (or its runner died and its lease is being given up).
    if (err instanceof IdempotencyAlreadyInProgressError || err instanceof IdempotencyInconsistentStateError) throw new DomainError('conflict', KEY_IN_FLIGHT, {}, 1);
    throw err; // what the route threw (the library rethrows it as is) or a store failure
  }
}
