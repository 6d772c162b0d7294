import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { faults } from '../helpers/faults.ts';
import { faultCounts } from '#shared/faults';
import { appContext } from '#shared/context';
import { resendStaleOutbox } from '#shared/outbox';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { putItem } from '#db/items';
import { workerTable } from '../../functions/workers/index.ts';

/**
 * What a change asks to be sent (mail, domain events) is written in its own
 * transaction (the outbox) and handed to its queue by the outbox reader, so a queue outage delays it and
 * never loses it; an item whose message was dead-lettered is handed over again by the resend sweep.
 */
const ref = useTestStack({ WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' });
const api = client(() => ref.stack.url);
afterEach(() => faults(''));

const received: { id: string; type: string; data: Record<string, unknown> }[] = [];
let receiver: Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ id: String(req.headers['webhook-id']), type: event.type, data: event.data });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

/** What is still in the outbox (its consumers remove what they are done with). */
const outboxItems = () =>
  queryPartition<{ queue?: string; mail?: { to: string }; event?: { id: string } }>(keys.outboxPK, '');
/** The resend sweep as the webhook retry schedule runs it, `minutes` later than now. */
const resendLater = (minutes: number) =>
  resendStaleOutbox(appContext({ clock: { now: () => new Date(Date.now() + minutes * 60_000) } }));

describe('mail asked for while SQS is down', () => {
  it('an invitation, a password reset and an e-mail change asked for while every SQS send fails each arrive once after the outage', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const resetting = await signUp(api);
    const moving = await signUp(api);
    const invitee = uniqueEmail('outage-invitee');
    const newAddress = uniqueEmail('outage-moved');

    faults('sqs.unavailable:1');
    const invite = await api.post('/invites', { project_id: projectId, invited_email: invitee }, { token });
    expect(invite.status, invite.text).toBe(201);
    expect((await api.post('/auth/password/reset', { email: resetting.email })).status).toBe(200);
    const moved = await api.patch(
      '/auth/me',
      { email: newAddress, current_password: PASSWORD },
      { token: moving.token },
    );
    expect(moved.status, moved.text).toBe(200);
    await ref.stack.queues.drain();
    // The outbox reader tried and SQS refused every send: nothing was sent, and everything waits in the outbox.
    expect(faultCounts()['sqs.unavailable']).toBeGreaterThan(0);
    for (const to of [invitee, resetting.email, newAddress, moving.email])
      expect(await readOutbox(ref.stack.dataDir, { to })).toEqual([]);
    const waiting = (await outboxItems()).filter((i) => i.queue === 'mail').map((i) => i.mail!.to);
    expect(waiting).toEqual(expect.arrayContaining([invitee, resetting.email, newAddress, moving.email]));

    faults('');
    await ref.stack.queues.drain();
    // A late resend finds nothing left to send: each mail once, and their outbox items (with the links) gone.
    await resendLater(60);
    await ref.stack.queues.drain();
    const [invitation] = await readOutbox(ref.stack.dataDir, { to: invitee });
    const [reset] = await readOutbox(ref.stack.dataDir, { to: resetting.email });
    const [confirmation] = await readOutbox(ref.stack.dataDir, { to: newAddress });
    const [notice] = await readOutbox(ref.stack.dataDir, { to: moving.email });
    for (const to of [invitee, resetting.email, newAddress, moving.email])
      expect(await readOutbox(ref.stack.dataDir, { to })).toHaveLength(1);
    expect(notice.subject).toBe('Your Infrastructure Catalog e-mail address is being changed');
    // The links work: the reset sets a password, the confirmation moves the address, the invitation opens.
    expect(
      (
        await api.post('/auth/password/reset/confirm', {
          token: linkFrom(reset, '/reset-password').searchParams.get('token'),
          new_password: 'a brand new passphrase',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api.post('/auth/email/confirm', {
          token: linkFrom(confirmation, '/confirm-email').searchParams.get('token'),
        })
      ).status,
    ).toBe(200);
    expect((await api.get('/auth/me', { token: moving.token })).body.email).toBe(newAddress);
    expect(linkFrom(invitation, '/invitations/accept').searchParams.get('token')).toBeTruthy();
    expect((await outboxItems()).filter((i) => i.queue === 'mail')).toEqual([]);
  });
});

describe('events and the queues', () => {
  it('a service created while every SQS send fails reaches its webhook once after the outage', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    expect(
      (
        await api.post(
          `/projects/${projectId}/webhooks`,
          { url: `${hookUrl}/outage`, events: ['service.created'] },
          { token },
        )
      ).status,
    ).toBe(201);
    faults('sqs.unavailable:1');
    const service = await createService(api, token, projectId, envId, { name: 'during-outage' });
    await ref.stack.queues.drain();
    expect(received.filter((r) => r.data.service_id === service.id)).toEqual([]);
    faults('');
    await ref.stack.queues.drain();
    expect(received.filter((r) => r.data.service_id === service.id).map((r) => r.type)).toEqual(['service.created']);
  });

  it('an event whose message was dead-lettered (5 failed receives) ends as a delivery: the resend sweep hands it over again', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const hook = await api.post(
      `/projects/${projectId}/webhooks`,
      { url: `${hookUrl}/dead-lettered`, events: ['service.created'] },
      { token },
    );
    expect(hook.status).toBe(201);
    // The events worker fails every receive (the table unreachable for it, say): the message goes to the dead-letter queue.
    const worker = workerTable.events!;
    let failedReceives = 0;
    workerTable.events = {
      ...worker,
      handler: async (e: SQSEvent) => (
        (failedReceives += e.Records.length),
        { batchItemFailures: e.Records.map((r) => ({ itemIdentifier: r.messageId })) }
      ),
    };
    let service: { id: string };
    try {
      service = await createService(api, token, projectId, envId, { name: 'dead-lettered' });
      await ref.stack.queues.drain();
    } finally {
      workerTable.events = worker;
    }
    expect(failedReceives).toBe(5);
    const deliveries = async () =>
      (await api.get(`/projects/${projectId}/webhooks/${hook.body.id}/deliveries`, { token })).body as {
        id: string;
        status: string;
        event_type: string;
      }[];
    expect(await deliveries()).toEqual([]);
    // Before its time nothing is resent (its message may still be on its way); after it, the event is delivered once.
    expect((await resendLater(1)).resent).toBe(0);
    expect((await resendLater(16)).resent).toBeGreaterThanOrEqual(1);
    await ref.stack.queues.drain();
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ event_type: 'service.created', status: 'succeeded' });
    expect(received.filter((r) => r.data.service_id === service!.id).map((r) => r.id)).toEqual([delivery.id]);
    // Done with: its outbox item went, so a later sweep sends nothing again.
    expect((await outboxItems()).filter((i) => i.event?.id === delivery.id)).toEqual([]);
    expect((await resendLater(60)).resent).toBe(0);
  });

  it('leaves the outbox items written before the resend existed (no queue: the stream handed them over, nobody removed them) to their TTL', async () => {
    const event = {
      id: crypto.randomUUID(),
      type: 'service.created',
      timestamp: new Date(Date.now() - 3_600_000).toISOString(),
      data: {},
    };
    await putItem({
      ...keys.outbox(event.timestamp, event.id),
      type: 'outbox',
      scope: { project_id: crypto.randomUUID() },
      event,
    });
    expect((await resendLater(60)).resent).toBe(0);
    expect((await outboxItems()).filter((i) => i.event?.id === event.id)).toHaveLength(1);
  });
});
