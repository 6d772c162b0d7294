import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import {
  IdempotencyConfig,
  IdempotencyItemAlreadyExistsError,
  IdempotencyRecordStatus,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { ddb } from '#shared/clients';
import { onReset } from '#shared/clients/lazy';
import { config } from '#shared/config';
import { TABLE } from '#db/table';
import { keys } from '#db/keys';
import { DomainError, unprocessable } from '#shared/errors';
import { keyIssue } from './idempotency-key.ts';
import { throughOutage } from '#db/retry';
import { errorFields, log } from '#shared/log';
import { behindGate } from '#shared/write-gate';

type Result = APIGatewayProxyStructuredResultV2;

/**
 * `Idempotency-Key` on authenticated POSTs (Stripe's and the IETF draft's semantics, on Powertools
 * Idempotency with its DynamoDB persistence layer): the first request with a key runs and its
 * answer is kept 24 hours; a retry with the same key and the same request gets that answer again
 * (`Idempotent-Replayed: true`) without running; the same key with another request is 422; a retry
 * while the first is still running is 409 with `Retry-After`. A refusal (4xx) or failure is not
 * kept, so a corrected retry may use the same key. Keys are the caller's own: one account cannot
 * replay another's answers. Loaded only when a request carries the header.
 *
 * The library's persistence layer keeps the records; the order is our own (not `makeIdempotent`,
 * which claims, then runs): the claim goes out together with the route, whose writes wait for it
 * (shared/write-gate.ts), so on the way to a first answer the key costs one sequential round trip
 * (keeping the answer), the claim riding beside the route's first read.
 */
export const KEY_REUSED = 'Idempotency-Key was already used with a different request';
export const KEY_IN_FLIGHT = 'A request with this Idempotency-Key is still being processed; retry shortly';
const KEEP_SECONDS = 24 * 60 * 60;

const ATTRIBUTES = {
  PK: TABLE.partitionKey,
  expiry: TABLE.ttlAttribute,
  status: 'status',
  inProgressExpiry: 'in_progress_expiration',
  validation: 'validation',
  owner: 'claimed_by',
};

/**
 * Records live in the one table, one partition per key (not the library's single static partition).
 * The claim is written with a nonce of its own, and a claim holding that nonce counts as written:
 * when the claim's PutItem takes effect but its answer is lost, the SDK's retry of the same call
 * then goes through instead of finding "another request in progress" (which would refuse the one
 * request that holds the key for the whole lease).
 */
class TablePersistence extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    return marshall(keys.idempotencyRecord(idempotencyKey));
  }

  /**
   * Keeping the answer happens after the route's write took effect: losing it to a passing outage
   * would leave the key claimed, and a retry after the lease would run the request again. So it is
   * retried past the SDK's own attempts.
   */
  protected override _updateRecord(record: IdempotencyRecord): Promise<void> {
    return throughOutage(() => super._updateRecord(record));
  }

  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    const now = Date.now();
    const owner = owners.getStore() ?? randomUUID();
    const item = {
      ...keys.idempotencyRecord(record.idempotencyKey),
      [ATTRIBUTES.expiry]: record.expiryTimestamp,
      [ATTRIBUTES.status]: record.getStatus(),
      [ATTRIBUTES.owner]: owner,
      ...(record.inProgressExpiryTimestamp !== undefined
        ? { [ATTRIBUTES.inProgressExpiry]: record.inProgressExpiryTimestamp }
        : {}),
      ...(record.payloadHash !== undefined ? { [ATTRIBUTES.validation]: record.payloadHash } : {}),
    };
    try {
      await ddb().send(
        new PutCommand({
          TableName: config().TABLE_NAME,
          Item: item,
          // The library's conditions (new, expired, or an abandoned claim), or this very claim.
          ConditionExpression:
            'attribute_not_exists(#id) OR #expiry < :now OR (#status = :inprogress AND #lease < :now_ms) OR #owner = :owner',
          ExpressionAttributeNames: {
            '#id': ATTRIBUTES.PK,
            '#expiry': ATTRIBUTES.expiry,
            '#status': ATTRIBUTES.status,
            '#lease': ATTRIBUTES.inProgressExpiry,
            '#owner': ATTRIBUTES.owner,
          },
          ExpressionAttributeValues: {
            ':now': now / 1000,
            ':now_ms': now,
            ':inprogress': IdempotencyRecordStatus.INPROGRESS,
            ':owner': owner,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const old = err.Item && unmarshall(err.Item);
      throw new IdempotencyItemAlreadyExistsError(
        'Idempotency key already claimed',
        old &&
          new IdempotencyRecord({
            idempotencyKey: record.idempotencyKey,
            status: old[ATTRIBUTES.status],
            expiryTimestamp: old[ATTRIBUTES.expiry],
            inProgressExpiryTimestamp: old[ATTRIBUTES.inProgressExpiry],
            responseData: old.data,
            payloadHash: old[ATTRIBUTES.validation],
          }),
      );
    }
  }

  /**
   * Removes the claim `owner` wrote, and only it (by now another request may hold the key); through
   * outages like keeping an answer. Never fails: a claim left behind ends with its lease, and what
   * the request answers is its own outcome.
   */
  async release(data: Data, owner: string): Promise<void> {
    const remove = () =>
      ddb().send(
        new DeleteCommand({
          TableName: config().TABLE_NAME,
          Key: keys.idempotencyRecord(this.getHashedIdempotencyKey(data)),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': ATTRIBUTES.owner },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
    try {
      await throughOutage(remove);
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException))
        log.warn('idempotency claim not released: it ends with its lease', errorFields(err));
    }
  }
}
type Data = Parameters<TablePersistence['saveInProgress']>[0];

/** The owner of the claim being written (a nonce per request), handed to `_putRecord` through the library's `saveInProgress`. */
const owners = new AsyncLocalStorage<string>();

let persistence: TablePersistence | undefined;
// Made on the shared DynamoDB client and table: dropped with the clients, so it never keeps a destroyed one.
onReset(() => (persistence = undefined));
function configured(): TablePersistence {
  if (persistence) return persistence;
  persistence = new TablePersistence({
    tableName: config().TABLE_NAME,
    keyAttr: TABLE.partitionKey,
    sortKeyAttr: TABLE.sortKey,
    expiryAttr: ATTRIBUTES.expiry,
    statusAttr: ATTRIBUTES.status,
    inProgressExpiryAttr: ATTRIBUTES.inProgressExpiry,
    validationKeyAttr: ATTRIBUTES.validation,
    dataAttr: 'data',
    awsSdkV3Client: ddb() as never,
  });
  persistence.configure({
    config: new IdempotencyConfig({
      eventKeyJmesPath: 'scope',
      payloadValidationJmesPath: 'request',
      expiresAfterSeconds: KEEP_SECONDS,
      hashFunction: 'sha256',
      throwOnNoIdempotencyKey: true,
    }),
    keyPrefix: 'IDEMPOTENCY',
  });
  return persistence;
}

/** What identifies "the same request": its method, path, query and validated body (a multipart file by its digest, so a retry's new boundary is still the same request). */
export interface RequestFingerprint {
  method: string;
  path: string;
  query: string;
  body: unknown;
}

const digestFiles = (_key: string, value: unknown) =>
  value && typeof value === 'object' && Buffer.isBuffer((value as { content?: unknown }).content)
    ? {
        ...value,
        content: createHash('sha256')
          .update((value as { content: Buffer }).content)
          .digest('hex'),
      }
    : value;

/** Runs `answer` once per (account, key) within 24 hours; see the module comment. */
export async function once(
  scope: { accountId: string; key: string },
  request: RequestFingerprint,
  context: Context | undefined,
  answer: () => Promise<Result>,
): Promise<Result> {
  const persistence = configured();
  const data = {
    scope: `${scope.accountId} ${scope.key}`,
    request: `${JSON.stringify(request.body, digestFiles)} ${request.method} ${request.path}?${request.query}`,
  };
  const owner = randomUUID();
  // The claim goes out now, beside the route's first reads; the route's writes wait for it.
  const claim = owners.run(owner, () => persistence.saveInProgress(data, context?.getRemainingTimeInMillis?.()));
  const [claimed, ran] = await Promise.allSettled([claim, behindGate(claim, answer).result]);
  if (claimed.status === 'rejected') {
    // Nothing of the route was written: the key's record (or the store's failure) is the answer.
    if (claimed.reason instanceof IdempotencyItemAlreadyExistsError)
      return answerOf(claimed.reason.existingRecord, data);
    // The claim may have been written before its answer was lost: taken back, so that the retry is
    // not told "still running" until the lease ends (which it does anyway if this fails too).
    await persistence.release(data, owner);
    throw claimed.reason;
  }
  if (ran.status === 'rejected') {
    // A refusal or failure is not kept: the corrected retry may use the key.
    await persistence.release(data, owner);
    throw ran.reason;
  }
  try {
    await persistence.saveSuccess(data, ran.value as Data);
  } catch (err) {
    // What the route did is done: its answer is the truth, a 503 would have the client do it again.
    // Only a retry after the claim's lease (which a client that got this answer has no reason to send) runs again.
    log.warn('idempotency answer not kept: the key is free again when its claim lease ends', errorFields(err));
  }
  return ran.value;
}

/** What a request whose key is already taken gets: the kept answer, 422 (another request), or 409 (the first still runs). */
function answerOf(record: IdempotencyRecord | undefined, data: Data): Result {
  // (The claim's failure always carries the record it found; without one, the retry finds it.)
  if (!record) throw new DomainError('conflict', KEY_IN_FLIGHT, {}, 1);
  try {
    configured().processExistingRecord(record, data);
  } catch (err) {
    if (err instanceof IdempotencyValidationError)
      throw unprocessable([keyIssue(KEY_REUSED, 'idempotency_key_reused')]);
    throw err;
  }
  if (record.getStatus() !== IdempotencyRecordStatus.COMPLETED) throw new DomainError('conflict', KEY_IN_FLIGHT, {}, 1);
  const kept = record.getResponse() as Result;
  return { ...kept, headers: { ...kept.headers, 'idempotent-replayed': 'true' } };
}
