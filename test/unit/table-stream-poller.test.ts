import { afterAll, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { pollStream, type streamMappings } from '../../infra/deployed/table-stream.ts';
import { shardPositions } from '../../infra/local/stream-shards.ts';
import type { LambdaFunction } from '../../infra/deployed/lambda-functions.ts';
import type { Iam } from '../../infra/deployed/iam.ts';
import type { Sqs } from '../../infra/deployed/stand-ins/sqs.ts';

const streams = mockClient(DynamoDBStreamsClient);
afterAll(() => streams.restore());

const STREAM = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-11-29T00:00:00.000';
const mapping: ReturnType<typeof streamMappings>[number] = {
  id: 'OutboxMapping',
  streamArn: STREAM,
  functionId: 'OutboxFunction',
  batchSize: 100,
  reportsItemFailures: false,
  maxRetries: 10,
  onFailure: undefined,
  patterns: [],
  startingPosition: 'LATEST',
};
const fn = { logicalId: 'OutboxFunction', arn: 'arn:aws:lambda:us-east-1:000000000000:function:x' } as LambdaFunction;
const iam = { allows: async () => true } as unknown as Iam;

describe("start:deployed's table stream poller", () => {
  it('takes a shard iterator again when its records were trimmed, from the oldest record kept, and delivers them', async () => {
    const record = {
      eventID: '1',
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: '100', Keys: { PK: { S: 'a' } } },
    };
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 's1' }] } });
    streams
      .on(GetShardIteratorCommand, { ShardIteratorType: 'LATEST' })
      .resolves({ ShardIterator: 'at-latest' })
      .on(GetShardIteratorCommand, { ShardIteratorType: 'TRIM_HORIZON' })
      .resolves({ ShardIterator: 'at-horizon' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'at-latest' })
      .rejects(new TrimmedDataAccessException({ message: 'read past the oldest stream record', $metadata: {} }))
      .on(GetRecordsCommand, { ShardIterator: 'at-horizon' })
      .resolves({ Records: [record], NextShardIterator: 'next' })
      .on(GetRecordsCommand, { ShardIterator: 'next' })
      .resolves({ Records: [], NextShardIterator: 'next' });
    const lines: string[] = [];
    let delivered!: (event: unknown) => void;
    const invoked = new Promise((r) => (delivered = r));
    const poller = pollStream(
      mapping,
      fn,
      'http://127.0.0.1:1',
      {} as Sqs,
      iam,
      async (_id, event) => delivered(event),
      (l) => lines.push(l),
    );
    try {
      const event = (await invoked) as { Records: { eventID: string; eventSourceARN: string }[] };
      expect(event.Records.map((r) => [r.eventID, r.eventSourceARN])).toEqual([['1', STREAM]]);
      expect(streams.commandCalls(GetShardIteratorCommand).map((c) => c.args[0].input.ShardIteratorType)).toEqual([
        'LATEST',
        'TRIM_HORIZON',
      ]);
      expect(lines).toEqual([expect.stringContaining('s1: its iterator is taken again')]);
    } finally {
      await poller.stop();
    }
  }, 10_000);

  it('takes a shard again after the last record handed on (an expired iterator), from the oldest kept once trimmed past it, else where the reader starts', () => {
    const positions = shardPositions();
    expect(positions.start('s1', 'LATEST')).toEqual({ ShardIteratorType: 'LATEST' });
    positions.handed('s1', '100');
    positions.lost('s1', Object.assign(new Error('expired'), { name: 'ExpiredIteratorException' }));
    expect(positions.start('s1', 'LATEST')).toEqual({
      ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: '100',
    });
    positions.lost('s1', new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} }));
    expect(positions.start('s1', 'LATEST')).toEqual({ ShardIteratorType: 'TRIM_HORIZON' });
    expect(positions.start('s2', 'LATEST')).toEqual({ ShardIteratorType: 'LATEST' });
  });
});
