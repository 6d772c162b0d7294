import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { useTestStack } from '../helpers/stack';
import { handler } from '../../functions/workers/mail/handler';
import { queueMail } from '#mail/send';
import { appContext } from '#shared/context';

const ref = useTestStack({}, { withoutHttp: true });

const sqsEvent = (body: object, messageId = randomUUID()): SQSEvent => ({
  Records: [{ messageId, receiptHandle: messageId, body: JSON.stringify(body), attributes: {} as never, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn', awsRegion: 'local' }],
});
const outbox = async () => {
  const dir = join(ref.stack.dataDir, 'outbox');
  const files = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8'))));
};

describe('mail worker', () => {
  it('sends a redelivered message once', async () => {
    const mail = { id: randomUUID(), to: 'once@example.com', subject: 'Once', text: 'plain', html: '<p>html</p>' };
    expect((await handler(sqsEvent(mail))).batchItemFailures).toEqual([]);
    expect((await handler(sqsEvent(mail))).batchItemFailures).toEqual([]);
    expect((await outbox()).filter((m) => m.to === 'once@example.com')).toEqual([{ to: 'once@example.com', subject: 'Once', text: 'plain', html: '<p>html</p>' }]);
  });

  it('delivers queued mail through the in-process queue to the outbox', async () => {
    await queueMail({ to: 'queued@example.com', subject: 'Queued', text: 't', html: '<b>h</b>' }, appContext());
    await ref.stack.queues.drain();
    expect((await outbox()).filter((m) => m.to === 'queued@example.com')).toHaveLength(1);
  });
});
