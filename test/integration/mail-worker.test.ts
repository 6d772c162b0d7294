import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { useTestStack } from '../helpers/stack.ts';
import { handler } from '../../functions/workers/mail/handler.ts';
import { writeMail } from '#mail/send';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { appContext } from '#shared/context';

const ref = useTestStack({}, { withoutHttp: true });

const sqsEvent = (body: object, messageId = randomUUID()): SQSEvent => ({
  Records: [
    {
      messageId,
      receiptHandle: messageId,
      body: JSON.stringify(body),
      attributes: {} as never,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn',
      awsRegion: 'local',
    },
  ],
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
    expect((await outbox()).filter((m) => m.to === 'once@example.com')).toEqual([
      { to: 'once@example.com', subject: 'Once', text: 'plain', html: '<p>html</p>' },
    ]);
  });

  it('delivers mail written to the outbox through the in-process queue to the mailer, then removes its outbox item', async () => {
    await writeMail({ to: 'queued@example.com', subject: 'Queued', text: 't', html: '<b>h</b>' }, appContext());
    const [item] = (
      await queryPartition<{ queue: string; expires_at_epoch: number; mail: { to: string } }>(keys.outboxPK, '')
    ).filter((i) => i.mail?.to === 'queued@example.com');
    // Its text may hold a sign-in link: the item expires within a day.
    expect(item.queue).toBe('mail');
    expect(item.expires_at_epoch - Date.now() / 1000).toBeGreaterThan(23 * 3600);
    expect(item.expires_at_epoch - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
    await ref.stack.queues.drain();
    expect((await outbox()).filter((m) => m.to === 'queued@example.com')).toHaveLength(1);
    expect(
      (await queryPartition<{ mail?: { to: string } }>(keys.outboxPK, '')).filter(
        (i) => i.mail?.to === 'queued@example.com',
      ),
    ).toEqual([]);
  });
});
