import { shardPositions } from './stream-shards.ts';
import { localDynamoCredentials } from './dynamo.ts';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { streamImage } from '#shared/stream-image';
import { ddb } from '#shared/clients';
import { sdkLogger } from '#shared/clients/sdk-logger';
import { liveFromStream, type StreamRecord } from '#domain/live';
import { appContext, type Clock } from '#shared/context';
import { errorFields, log } from '#shared/log';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const recordOf = (r: _Record): StreamRecord => ({
  sequenceNumber: r.dynamodb?.SequenceNumber ?? '',
  eventName: r.eventName,
  newImage: streamImage(r.dynamodb?.NewImage),
  oldImage: streamImage(r.dynamodb?.OldImage),
});

/**
 * The cloud's table stream into the outbox function's live part, locally: DynamoDB Local's own Streams
 * API read shard by shard from where the stream is at start (as Lambda's stream poller reads; the
 * platform's reader, not the product's), each batch handed to `liveFromStream` in order, a batch it
 * could not keep read again from the record it names. The outbox's events and mail keep their own
 * local reader (shared/outbox.ts), as before.
 */
export function readTableStream(opts: { endpoint: string; tableName: string; pollMs: number; clock?: Clock }) {
  const client = new DynamoDBStreamsClient({
    endpoint: opts.endpoint,
    region: 'us-east-1',
    credentials: localDynamoCredentials(),
    logger: sdkLogger,
  });
  const iterators = new Map<string, string | undefined>();
  const positions = shardPositions();
  let running = true;
  let first = true;
  let started: () => void = () => undefined;
  /** Resolved once the reader stands at the stream's end: what is written from then on reaches it. */
  const ready = new Promise<void>((r) => (started = r));

  async function shards(streamArn: string): Promise<void> {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (iterators.has(shard.ShardId!)) continue;
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          // What was written before the start is not news; a shard opened since is read whole.
          ...positions.start(shard.ShardId!, first ? 'LATEST' : 'TRIM_HORIZON'),
        }),
      );
      iterators.set(shard.ShardId!, ShardIterator);
    }
    first = false;
    started();
  }

  const getRecords = (ShardIterator: string) => client.send(new GetRecordsCommand({ ShardIterator, Limit: 100 }));

  const loop = (async () => {
    const { Table } = await ddb().send(new DescribeTableCommand({ TableName: opts.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) {
      started();
      return log.warn('the table has no stream: no live changes');
    }
    let ticks = 0;
    while (running) {
      try {
        if (ticks++ % 20 === 0) await shards(streamArn);
        let got = 0;
        for (const [shard, iterator] of iterators) {
          if (!iterator) continue;
          const out = await positions.read(
            shard,
            () => getRecords(iterator),
            (err) => {
              log.warn('table stream iterator taken again', { shard, ...errorFields(err) });
              iterators.delete(shard);
              ticks = 0; // the shards are described again at once
            },
          );
          if (!out) continue;
          let next = out.NextShardIterator;
          const seen = out.Records?.at(-1)?.dynamodb?.SequenceNumber;
          const records = (out.Records ?? []).map(recordOf);
          if (records.length) {
            got += records.length;
            const failed = await liveFromStream(appContext({ clock: opts.clock }), records);
            if (failed) {
              ({ ShardIterator: next } = await client.send(
                new GetShardIteratorCommand({
                  StreamArn: streamArn,
                  ShardId: shard,
                  ShardIteratorType: 'AT_SEQUENCE_NUMBER',
                  SequenceNumber: failed,
                }),
              ));
              await sleep(200);
            } else positions.handed(shard, seen);
          }
          iterators.set(shard, next);
        }
        if (!got && running) await sleep(opts.pollMs);
      } catch (err) {
        if (running) log.warn('table stream not read', errorFields(err));
        started();
        await sleep(500);
      }
    }
  })();
  return {
    ready,
    async stop() {
      started();
      running = false;
      await loop.catch(() => undefined);
      client.destroy();
    },
  };
}
