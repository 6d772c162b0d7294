import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { log } from '#shared/log';

/**
 * The workers run their batches through Powertools' batch processing and parse each
 * body once against its queue's schema. A malformed body fails only its own message (reported, logged,
 * for the dead-letter queue after maxReceiveCount); a message whose handler throws is reported, the
 * others not. The domain is stubbed: these are about the batch, not the jobs.
 */
const fakes = vi.hoisted(() => ({
  runCheckoutJob: vi.fn(async (..._: unknown[]) => {}),
  cancelAtProvider: vi.fn(async (..._: unknown[]) => {}),
  changePlanAtProvider: vi.fn(async (..._: unknown[]) => {}),
  runImpexJob: vi.fn(async (..._: unknown[]) => {}),
  runDiscoveryJob: vi.fn(async (..._: unknown[]) => {}),
  deliverEvent: vi.fn(async (..._: unknown[]) => {}),
  send: vi.fn(async (..._: unknown[]) => {}),
  claimMail: vi.fn(async (..._: unknown[]) => true),
  releaseMail: vi.fn(async (..._: unknown[]) => {}),
}));
vi.mock('#domain/billing', async (actual) => ({
  ...(await actual<object>()),
  runCheckoutJob: fakes.runCheckoutJob,
  cancelAtProvider: fakes.cancelAtProvider,
  changePlanAtProvider: fakes.changePlanAtProvider,
}));
vi.mock('#domain/impex', async (actual) => ({ ...(await actual<object>()), runImpexJob: fakes.runImpexJob }));
vi.mock('#domain/discovery', async (actual) => ({
  ...(await actual<object>()),
  runDiscoveryJob: fakes.runDiscoveryJob,
}));
vi.mock('#domain/webhooks', async (actual) => ({ ...(await actual<object>()), deliverEvent: fakes.deliverEvent }));
vi.mock('#mail/mailer', async (actual) => ({ ...(await actual<object>()), mailer: () => ({ send: fakes.send }) }));
vi.mock('#mail/delivery', () => ({ claimMail: fakes.claimMail, releaseMail: fakes.releaseMail }));

const { handler: jobs } = await import('../../functions/workers/jobs/handler.ts');
const { handler: mail } = await import('../../functions/workers/mail/handler.ts');
const { handler: events } = await import('../../functions/workers/events/handler.ts');

const record = (body: string, messageId = randomUUID()): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:test',
  awsRegion: 'local',
});
const batch = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((b) => record(b)) });
const ids = (e: SQSEvent, ...i: number[]) => i.map((n) => ({ itemIdentifier: e.Records[n].messageId }));

const checkout = (n: number) => JSON.stringify({ kind: 'checkout', user_id: `user-${n}`, job_id: `job-${n}` });
const discover = JSON.stringify({ kind: 'discover', project_id: 'p-1', run_id: 'run-1' });
const queued = (n: number) =>
  JSON.stringify({ id: `mail-${n}`, to: `to-${n}@example.com`, subject: 's', text: 't', html: '<p>h</p>' });
const eventMessage = (n: number) =>
  JSON.stringify({
    project_id: 'p-1',
    event: { id: `event-${n}`, type: 'service.created', timestamp: '2026-11-27T00:00:00.000Z', data: {} },
  });

const errors = vi.spyOn(log, 'error');
beforeEach(() => vi.clearAllMocks());
afterAll(() => errors.mockRestore());
const malformedLines = () =>
  errors.mock.calls.filter(([m]) => m === 'message malformed; reported as failed, for the dead-letter queue');

describe('the jobs worker', () => {
  it.each([
    ['missing a field of its kind', JSON.stringify({ kind: 'checkout', user_id: 'user-x' })],
    ['of no known kind', JSON.stringify({ kind: 'no-such-kind' })],
    ['not JSON', '{"kind": "checkout",'],
  ])('a malformed message (%s) in a batch of three is the only failure; the other two run', async (_, bad) => {
    const e = batch(checkout(1), bad, checkout(3));
    expect(await jobs(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.runCheckoutJob.mock.calls.map(([, input]) => (input as { user_id: string }).user_id)).toEqual([
      'user-1',
      'user-3',
    ]);
    expect(malformedLines()).toHaveLength(1);
    expect(malformedLines()[0][1]).toMatchObject({
      worker: 'jobs',
      message_id: e.Records[1].messageId,
      issues: expect.any(Array),
    });
  });

  it('a job that throws is reported; the messages around it are not', async () => {
    fakes.runDiscoveryJob.mockRejectedValueOnce(new Error('provider down'));
    const e = batch(checkout(1), discover, checkout(3));
    expect(await jobs(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.runCheckoutJob).toHaveBeenCalledTimes(2);
    expect(errors).toHaveBeenCalledWith(
      'job failed',
      expect.objectContaining({ message_id: e.Records[1].messageId, error_message: 'provider down' }),
    );
  });

  it('a batch that fails whole is answered with every id, not thrown (Lambda and the local queues read the answer)', async () => {
    fakes.runCheckoutJob.mockRejectedValue(new Error('table unreachable'));
    const e = batch(checkout(1), checkout(2));
    expect(await jobs(e)).toEqual({ batchItemFailures: ids(e, 0, 1) });
    fakes.runCheckoutJob.mockReset();
  });
});

describe('the mail worker', () => {
  it.each([
    ['no recipient', JSON.stringify({ id: 'mail-2', subject: 'no recipient' })],
    // Before: the body was parsed outside any try, so the whole invocation threw and no message of the batch was answered.
    ['not JSON', '{"id": "mail-2", "subject": "no recipient"'],
  ])('a malformed message (%s) in a batch of three is the only failure; the other two are sent', async (_, bad) => {
    const e = batch(queued(1), bad, queued(3));
    expect(await mail(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.send.mock.calls.map(([m]) => (m as { to: string }).to)).toEqual([
      'to-1@example.com',
      'to-3@example.com',
    ]);
    expect(malformedLines()).toHaveLength(1);
    expect(JSON.stringify(malformedLines()[0][1])).not.toContain('no recipient'); // where and why, never the body
  });

  it('a message whose send throws is reported (and released for the retry); the others are not', async () => {
    fakes.send.mockImplementation(async (m) => {
      if ((m as { to: string }).to === 'to-2@example.com') throw new Error('SES throttled');
    });
    const e = batch(queued(1), queued(2), queued(3));
    expect(await mail(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.releaseMail.mock.calls).toEqual([['mail-2']]);
    expect(fakes.send).toHaveBeenCalledTimes(3);
    fakes.send.mockReset();
  });
});

describe('the events worker', () => {
  it('a malformed message in a batch of three is the only failure; the other two are delivered', async () => {
    const e = batch(
      eventMessage(1),
      JSON.stringify({ project_id: 'p-1', event: { id: 'event-2', type: 'no.such.type', timestamp: 'x', data: {} } }),
      eventMessage(3),
    );
    expect(await events(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.deliverEvent.mock.calls.map(([m]) => (m as { event: { id: string } }).event.id)).toEqual([
      'event-1',
      'event-3',
    ]);
    expect(malformedLines()).toHaveLength(1);
  });

  it('a delivery that throws is reported; the others are not', async () => {
    fakes.deliverEvent.mockImplementation(async (m) => {
      if ((m as { event: { id: string } }).event.id === 'event-2') throw new Error('table unreachable');
    });
    const e = batch(eventMessage(1), eventMessage(2), eventMessage(3));
    expect(await events(e)).toEqual({ batchItemFailures: ids(e, 1) });
    expect(fakes.deliverEvent).toHaveBeenCalledTimes(3);
    fakes.deliverEvent.mockReset();
  });
});
