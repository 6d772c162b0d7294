import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { readOutbox } from '../helpers/outbox.ts';

const SALES = 'sales@catalog.example.test';
const ref = useTestStack({ SALES_EMAIL: SALES, ENTERPRISE_REQUEST_RATE_LIMIT_PER_HOUR: '3' });
const api = client(() => ref.stack.url);

describe('POST /enterprise/request', () => {
  it("mails the request to sales, anonymously, with the sender's fields and message", async () => {
    const res = await api.post('/enterprise/request', {
      name: 'Dana Ops',
      email: 'dana@example.com',
      phone: '+1 555 0100',
      message: 'We run 4,000 services.\nCan we talk?',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: SALES });
    expect(mail.subject).toBe('Enterprise request from Dana Ops');
    expect(mail.text).toBe(
      'Name: Dana Ops\nE-mail: dana@example.com\nPhone: +1 555 0100\n\nWe run 4,000 services.\nCan we talk?',
    );
    expect(mail.html).toContain('We run 4,000 services.<br>Can we talk?');
  });

  it('refuses a missing name, a malformed address and a message under 10 characters with 422 naming the field', async () => {
    const missing = await api.post('/enterprise/request', {
      email: 'dana@example.com',
      message: 'long enough message',
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'name']);
    const short = await api.post('/enterprise/request', {
      name: 'Dana',
      email: 'dana@example.com',
      message: 'too short',
    });
    expect(short.status).toBe(422);
    expect(short.body.detail[0].loc).toEqual(['body', 'message']);
    const bad = await api.post('/enterprise/request', {
      name: 'Dana',
      email: 'not-an-address',
      message: 'long enough message',
    });
    expect(bad.body.detail[0].loc).toEqual(['body', 'email']);
  });

  it('keeps line breaks of the name out of the subject, and limits requests per source address (429 with Retry-After)', async () => {
    const res = await api.post('/enterprise/request', {
      name: 'Eve\r\nBcc: all@example.com',
      email: 'eve@example.com',
      message: 'please call me back',
    });
    expect(res.status, res.text).toBe(200);
    await ref.stack.queues.drain();
    const mails = await readOutbox(ref.stack.dataDir, { to: SALES });
    expect(mails.at(-1)!.subject).toBe('Enterprise request from Eve Bcc: all@example.com');
    expect(mails.at(-1)!.text.split('\n')[0]).toBe('Name: Eve Bcc: all@example.com');
    // Two requests so far in this file from 127.0.0.1 (the limit is 3 per hour).
    expect(
      (
        await api.post('/enterprise/request', {
          name: 'Dana',
          email: 'dana@example.com',
          message: 'third request today',
        })
      ).status,
    ).toBe(200);
    const fourth = await api.post('/enterprise/request', {
      name: 'Dana',
      email: 'dana@example.com',
      message: 'fourth request today',
    });
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
