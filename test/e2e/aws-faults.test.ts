import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { faults } from '../helpers/faults.ts';
import { totpCode } from '../helpers/sign-in.ts';
import { faultCounts } from '#shared/faults';
import { resetSigningKey } from '#auth/signing-key';
import { handler as mailWorker } from '../../functions/workers/mail/handler.ts';

/**
 * SES, KMS, Secrets Manager and SQS as the cloud configuration uses them (mail through SES, TOTP secrets
 * sealed with KMS, the token signing key from Secrets Manager, jobs queued on SQS), each answered by a small stand-in
 * for the one operation the product calls, so that their injected faults meet the real SDK clients.
 */
const sent: string[] = [];
const queuedJobs: { kind: string; record_id?: string }[] = [];
const stub: Server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const json = (o: object) =>
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(o));
    if (target.endsWith('.Encrypt'))
      return json({
        KeyId: 'k',
        CiphertextBlob: Buffer.from(`sealed:${JSON.parse(body).Plaintext}`).toString('base64'),
      });
    if (target.endsWith('.Decrypt'))
      return json({
        KeyId: 'k',
        Plaintext: Buffer.from(JSON.parse(body).CiphertextBlob, 'base64').toString().slice('sealed:'.length),
      });
    if (target.endsWith('.SendMessage')) {
      const { MessageBody } = JSON.parse(body) as { MessageBody: string };
      queuedJobs.push(JSON.parse(MessageBody));
      return res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(
        JSON.stringify({
          MessageId: randomUUID(),
          MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
        }),
      );
    }
    if (target.endsWith('.GetSecretValue'))
      return json({ Name: 'signing-key', SecretString: 'a signing key of the stand-in secret, long enough' });
    const form = new URLSearchParams(body);
    if (form.get('Action') === 'SendEmail') {
      sent.push(form.get('Destination.ToAddresses.member.1') ?? '');
      return res
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(
          `<SendEmailResponse><SendEmailResult><MessageId>${randomUUID()}</MessageId></SendEmailResult></SendEmailResponse>`,
        );
    }
    res.writeHead(400).end();
  });
});
await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
Object.assign(process.env, {
  AWS_ENDPOINT_URL_SES: endpoint,
  AWS_ENDPOINT_URL_KMS: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
});
afterAll(() => stub.close());

const ref = useTestStack({
  MAIL_TRANSPORT: 'ses',
  TOTP_KMS_KEY_ID: 'alias/totp',
  SIGNING_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:signing',
  JOBS_QUEUE_URL: `${endpoint}/000000000000/jobs`,
});
const api = client(() => ref.stack.url);
afterEach(() => faults(''));

/** The kinds a call that writes (or only reads) can meet. */
const KINDS = ['throttle', 'error', 'unavailable'] as const;

describe('Secrets Manager failing while the signing key is loaded', () => {
  it.each(KINDS)('secrets.%s: a clean 503 with Retry-After, and the retry is signed in', async (kind) => {
    const user = await signUp(api);
    resetSigningKey(); // as at a cold start
    faults(`secrets.${kind}:1`);
    const refused = await api.get('/auth/me', { token: user.token });
    expect(faultCounts()[`secrets.${kind}`]).toBeGreaterThan(0);
    faults('');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(200);
  });
});

describe('KMS failing while an authenticator secret is sealed', () => {
  it.each(KINDS)('kms.%s: enrolling answers a clean 503, and the retry enrols', async (kind) => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const verify = async () =>
      api.post(
        '/auth/totp/verify',
        { secret: body.secret, code: await totpCode(body.secret, new Date()), name: 'Phone' },
        { token: user.token },
      );
    faults(`kms.${kind}:1`);
    const refused = await verify();
    expect(faultCounts()[`kms.${kind}`]).toBeGreaterThan(0);
    faults('');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await verify()).status).toBe(204);
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toHaveLength(1);
  });
  it("kms.timeout-after-write (once per call): the SDK's retry seals the secret, and the device is enrolled once", async () => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    faults('kms.timeout-after-write:1');
    const enrolled = await api.post(
      '/auth/totp/verify',
      { secret: body.secret, code: await totpCode(body.secret, new Date()), name: 'Phone' },
      { token: user.token },
    );
    expect(faultCounts()['kms.timeout-after-write']).toBeGreaterThan(0);
    faults('');
    expect(enrolled.status, enrolled.text).toBe(204);
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toHaveLength(1);
  });
});

describe('SES failing while a mail is sent', () => {
  const delivery = (mail: object): SQSEvent => {
    const messageId = randomUUID();
    return {
      Records: [
        {
          messageId,
          receiptHandle: messageId,
          body: JSON.stringify(mail),
          attributes: {} as never,
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn',
          awsRegion: 'local',
        },
      ],
    };
  };

  it.each(KINDS)('ses.%s: the message goes back to the queue, and its redelivery sends the mail once', async (kind) => {
    const to = `${kind}-${randomUUID()}@example.com`;
    const mail = { id: randomUUID(), to, subject: 'Invitation', text: 'plain', html: '<p>html</p>' };
    faults(`ses.${kind}:1`);
    const failed = delivery(mail);
    expect((await mailWorker(failed)).batchItemFailures).toEqual([{ itemIdentifier: failed.Records[0].messageId }]);
    faults('');
    expect((await mailWorker(delivery(mail))).batchItemFailures).toEqual([]);
    expect((await mailWorker(delivery(mail))).batchItemFailures).toEqual([]); // delivered twice: sent once
    expect(sent.filter((t) => t === to)).toHaveLength(1);
  });
});

describe('SQS failing while a job is queued', () => {
  /** POST /impex/export takes a form, as a browser sends it. */
  const exportOf = async (token: string, fields: Record<string, string>) => {
    const body = new FormData();
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    const res = await fetch(`${ref.stack.url}/impex/export`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };
  it.each(KINDS)(
    'sqs.%s: the export is answered at once with its record failed, saying to try again; nothing stays queued, and the retry queues its job',
    async (kind) => {
      const { token, projectId, envId } = await ownerWithEnv(api);
      faults(`sqs.${kind}:1`);
      const refused = await exportOf(token, { project_id: projectId, environment_id: envId });
      expect(faultCounts()[`sqs.${kind}`]).toBeGreaterThan(0);
      faults('');
      expect(refused.status, refused.text).toBe(202);
      expect(refused.body.status).toBe('failed');
      const record = await api.get(`/impex/status/${refused.body.job_id}`, { token });
      expect(record.body).toMatchObject({ status: 'failed', error: 'The job could not be queued. Please try again.' });
      expect(queuedJobs.some((m) => m.record_id === refused.body.record_id)).toBe(false);
      const retried = await exportOf(token, { project_id: projectId, environment_id: envId });
      expect(retried.body.status).toBe('queued');
      expect(queuedJobs.filter((m) => m.record_id === retried.body.record_id)).toHaveLength(1);
    },
  );
});
