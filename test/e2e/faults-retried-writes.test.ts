import { afterEach, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, totpCode } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';
import { faults } from '../helpers/faults.ts';
import { ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { holdingFirstJob } from '../helpers/jobs.ts';
import { faultCounts } from '#shared/faults';
import { keys } from '#db/keys';

/**
 * `ddb.timeout-after-write:1`: every DynamoDB write takes effect, then its call times out once, and
 * the SDK sends it again. Each answer must be the write's own: a single-item conditional
 * write whose retry fails its condition on its own effect is not a lost race.
 */
const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test/' }, { clock, withS3: true });
const api = client(() => ref.stack.url);
const STEP = 30_000;

const everyWriteTimesOutOnce = () => faults('ddb.timeout-after-write:1');
afterEach(() => faults(''));

describe('single-item conditional writes retried after they took effect', () => {
  it("signs in with an authenticator's code once (the code's step claimed by the retried write), and refuses it again", async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(STEP);
    const code = await totpCode(secret, clock.now());
    everyWriteTimesOutOnce();
    const first = await login(api, user.email, PASSWORD, code);
    const again = await login(api, user.email, PASSWORD, code);
    expect(faultCounts()['ddb.timeout-after-write']).toBeGreaterThan(0);
    faults('');
    expect(first.status, first.text).toBe(200);
    expect([again.status, again.body]).toEqual([401, { detail: 'TOTP code required or invalid' }]);
  });

  it('signs in with a recovery code, which is used up once', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(STEP);
    const proof = { current_password: PASSWORD, totp_code: await totpCode(secret, clock.now()) };
    const { codes } = (await api.post('/auth/totp/recovery/regenerate', proof, { token: user.token })).body;
    everyWriteTimesOutOnce();
    const first = await login(api, user.email, PASSWORD, codes[0]);
    faults('');
    expect(first.status, first.text).toBe(200);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body).toEqual({ total: 10, unused: 9 });
  });

  it('mails a password reset once (its link token and the mail claim), and the link sets the password', async () => {
    const user = await signUp(api);
    everyWriteTimesOutOnce();
    const res = await api.post('/auth/password/reset', { email: user.email });
    await ref.stack.queues.drain();
    faults('');
    expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
    const mails = await readOutbox(ref.stack.dataDir, { to: user.email });
    expect(mails.map((m) => m.subject)).toEqual(['Reset your Infrastructure Catalog password']);
    const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(mails[0].text)![1];
    expect(
      (await api.post('/auth/password/reset/confirm', { token, new_password: 'a brand new passphrase' })).status,
    ).toBe(200);
  });

  it('counts each failed sign-in once: the lock comes on the 10th, not the 5th', async () => {
    const user = await signUp(api);
    everyWriteTimesOutOnce();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await login(api, user.email, 'wrong password')).status);
    faults('');
    expect(statuses).toEqual([...Array(9).fill(401), 423]);
  });

  it('cancels a queued import: 202 cancelled (not "finished"), its lock let go for the next import', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const example = JSON.stringify((await api.get('/impex/example', { token })).body);
    const startImport = () => {
      const body = new FormData();
      body.set('project_id', projectId);
      body.set('environment_id', envId);
      body.set('file', new Blob([example], { type: 'application/json' }), 'env.json');
      return fetch(`${ref.stack.url}/impex/import`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${token}` },
      });
    };
    // Its job is held back until the cancel has answered: it is surely still queued.
    const cancelled = await holdingFirstJob(async (release) => {
      const queued = (await (await startImport()).json()) as { job_id: string };
      everyWriteTimesOutOnce();
      const res = await api.post(`/impex/cancel/${queued.job_id}`, {}, { token });
      faults('');
      release();
      return res;
    });
    await ref.stack.queues.drain();
    expect(cancelled.status, cancelled.text).toBe(202);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await startImport()).status).toBe(202);
  });

  it('creates, renames and deletes a service with its answers, counters exact and one audit entry each', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    everyWriteTimesOutOnce();
    const created = await api.post(
      '/services',
      { name: 'retried', project_id: projectId, environment_id: envId },
      { token },
    );
    const renamed = await api.patch(`/services/${created.body.id}`, { name: 'retried-renamed' }, { token });
    const deleted = await api.delete(`/services/${created.body.id}`, undefined, { token });
    faults('');
    expect([created.status, renamed.status, deleted.status]).toEqual([201, 200, 204]);
    expect(renamed.body.name).toBe('retried-renamed');
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(0);
    const log = await api.get(`/projects/${projectId}/audit-log?entity_id=${created.body.id}`, { token });
    expect((log.body as { action: string }[]).map((e) => e.action).sort()).toEqual([
      'service.create',
      'service.delete',
      'service.update',
    ]);
  });
});
