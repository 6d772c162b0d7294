import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { Iam } from './iam.ts';
import { REGION, type Resolver } from './intrinsics.ts';
import type { LambdaFunction } from './lambda-functions.ts';
import type { Sqs } from './stand-ins/sqs.ts';
import { referencedId, resourcesOf, type CloudAssembly } from './template.ts';
import { shardPositions } from '../local/stream-shards.ts';
import { localDynamoCredentials } from '../local/dynamo.ts';

type Invoke = (functionId: string, event: unknown) => Promise<unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const POLL_MS = 100;

/** Whether a record matches an event filter pattern (Lambda's filter syntax: nested objects, arrays of allowed literal values). */
export function matchesPattern(pattern: Record<string, unknown>, value: unknown): boolean {
  return Object.entries(pattern).every(([key, want]) => {
    const got = (value as Record<string, unknown> | undefined)?.[key];
    if (Array.isArray(want)) {
      // Literal values, and `{ prefix }` (the only content filter supported locally).
      return want.some((w) => {
        if (typeof w !== 'object' || w === null) return w === got;
        if (typeof w.prefix !== 'string' || Object.keys(w).length !== 1)
          throw new Error(`filter ${JSON.stringify(want)}: only literal values and prefixes are supported locally`);
        return typeof got === 'string' && got.startsWith(w.prefix);
      });
    }
    return matchesPattern(want as Record<string, unknown>, got);
  });
}

/** The stream mappings of the template (a table's StreamArn as source). */
export function streamMappings(assembly: CloudAssembly, resolver: Resolver) {
  return resourcesOf(assembly, 'AWS::Lambda::EventSourceMapping')
    .filter(([, r]) => String(resolver.resolve(r.Properties!.EventSourceArn)).includes(':table/'))
    .map(([id, r]) => {
      const p = r.Properties!;
      return {
        id,
        streamArn: String(resolver.resolve(p.EventSourceArn)),
        functionId: referencedId(p.FunctionName)!,
        batchSize: Number(p.BatchSize ?? 100),
        reportsItemFailures: (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
        maxRetries: Number(p.MaximumRetryAttempts ?? 10_000),
        onFailure: p.DestinationConfig?.OnFailure?.Destination
          ? String(resolver.resolve(p.DestinationConfig.OnFailure.Destination))
          : undefined,
        patterns: ((p.FilterCriteria?.Filters ?? []) as { Pattern: string }[]).map(
          (f) => JSON.parse(f.Pattern) as Record<string, unknown>,
        ),
        startingPosition: (p.StartingPosition ?? 'LATEST') as 'TRIM_HORIZON' | 'LATEST',
      };
    });
}

/** A stream record as Lambda's event carries it. */
const lambdaRecord = (r: _Record, streamArn: string) => ({
  eventID: r.eventID,
  eventName: r.eventName,
  eventVersion: r.eventVersion ?? '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: REGION,
  eventSourceARN: streamArn,
  dynamodb: {
    ...r.dynamodb,
    ApproximateCreationDateTime: r.dynamodb?.ApproximateCreationDateTime
      ? Math.floor(r.dynamodb.ApproximateCreationDateTime.getTime() / 1000)
      : undefined,
  },
});

/**
 * The table stream into its function, through DynamoDB Local's own Streams API, as Lambda's stream
 * poller does: per shard, batches of records that pass the mapping's filters; a batch failure (thrown,
 * or the reported `batchItemFailures`) is retried from the failed record, and after MaximumRetryAttempts
 * its description goes to the OnFailure queue, the retries 0.1 s apart doubling to 3.2 s (times `backoffScale`, a
 * tester's `DEPLOYED_STREAM_BACKOFF_SCALE`). Reads are authorized against the function's role.
 */
export function pollStream(
  mapping: ReturnType<typeof streamMappings>[number],
  fn: LambdaFunction,
  dynamoEndpoint: string,
  sqs: Sqs,
  iam: Iam,
  invoke: Invoke,
  log: (line: string) => void,
  backoffScale = 1,
) {
  const client = new DynamoDBStreamsClient({
    endpoint: dynamoEndpoint,
    region: REGION,
    credentials: localDynamoCredentials(),
  });
  const iterators = new Map<string, string | undefined>();
  const positions = shardPositions();
  const getRecords = (ShardIterator: string) =>
    client.send(new GetRecordsCommand({ ShardIterator, Limit: mapping.batchSize }));
  let running = true;
  let busy = false;

  async function deliver(records: _Record[]): Promise<void> {
    let pending = records.filter(
      (r) => mapping.patterns.length === 0 || mapping.patterns.some((p) => matchesPattern(p, r)),
    );
    for (let attempt = 0; pending.length; attempt++) {
      let failedFrom: string | undefined = pending[0].dynamodb?.SequenceNumber;
      try {
        const out = (await invoke(mapping.functionId, {
          Records: pending.map((r) => lambdaRecord(r, mapping.streamArn)),
        })) as { batchItemFailures?: { itemIdentifier: string }[] } | undefined;
        failedFrom = mapping.reportsItemFailures ? out?.batchItemFailures?.[0]?.itemIdentifier : undefined;
      } catch (err) {
        log(`${fn.logicalId} failed a stream batch: ${(err as Error).message}`);
      }
      if (!failedFrom) return;
      pending = pending.slice(
        Math.max(
          0,
          pending.findIndex((r) => r.dynamodb?.SequenceNumber === failedFrom),
        ),
      );
      if (attempt >= mapping.maxRetries) {
        if (mapping.onFailure && (await iam.allows(fn.accessKeyId, 'sqs:SendMessage', mapping.onFailure))) {
          sqs.send(
            mapping.onFailure,
            JSON.stringify({
              requestContext: { condition: 'RetryAttemptsExhausted', functionArn: fn.arn },
              DDBStreamBatchInfo: {
                streamArn: mapping.streamArn,
                startSequenceNumber: pending[0].dynamodb?.SequenceNumber,
                batchSize: pending.length,
              },
            }),
          );
        }
        return;
      }
      await sleep(100 * 2 ** Math.min(attempt, 5) * backoffScale);
    }
  }

  const loop = (async () => {
    while (running) {
      try {
        if (!(await iam.allows(fn.accessKeyId, 'dynamodb:GetRecords', mapping.streamArn))) {
          await sleep(1000);
          continue;
        }
        const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: mapping.streamArn }));
        for (const shard of StreamDescription?.Shards ?? []) {
          if (!iterators.has(shard.ShardId!)) {
            const { ShardIterator } = await client.send(
              new GetShardIteratorCommand({
                StreamArn: mapping.streamArn,
                ShardId: shard.ShardId,
                ...positions.start(shard.ShardId!, mapping.startingPosition),
              }),
            );
            iterators.set(shard.ShardId!, ShardIterator);
          }
        }
        let got = 0;
        for (const [shard, iterator] of iterators) {
          if (!iterator) continue;
          // An iterator past its 15 minutes, or behind records trimmed meanwhile, is taken again: after the last record
          // delivered, else (trimmed) from the oldest record kept, as Lambda's mapping goes on.
          const out = await positions.read(
            shard,
            () => getRecords(iterator),
            (err) => {
              log(`stream poller ${mapping.id}: ${(err as Error).message} (${shard}: its iterator is taken again)`);
              iterators.delete(shard);
            },
          );
          if (!out) continue;
          iterators.set(shard, out.NextShardIterator);
          if (out.Records?.length) {
            got += out.Records.length;
            busy = true;
            await deliver(out.Records); // delivered, or given up on after its retries (to the on-failure queue)
            busy = false;
            positions.handed(shard, out.Records.at(-1)?.dynamodb?.SequenceNumber);
          }
        }
        if (!got) await sleep(POLL_MS);
      } catch (err) {
        if (running) log(`stream poller ${mapping.id}: ${(err as Error).message}`);
        await sleep(1000);
      }
    }
  })();
  return {
    get busy() {
      return busy;
    },
    async stop() {
      running = false;
      await loop;
      client.destroy();
    },
  };
}
