import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, uniqueEmail, PASSWORD } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';

/**
 * One invitation mails its address at most once a minute and five times an hour
 * (defaults of INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE / _PER_HOUR), its creation included.
 */
const MINUTE = 60_000;
const DETAIL = 'This invitation was sent recently. Please wait before resending it.';

const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test' }, { clock });
const api = client(() => ref.stack.url);

async function invitation(email = uniqueEmail('cooled')) {
  const owner = await signUp(api);
  const { projectId } = await projectWithEnv(api, owner.token);
  const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
  expect(created.status, created.text).toBe(201);
  return { owner, projectId, email, id: created.body.id as string };
}
const resend = (id: string, token: string) => api.post(`/invites/${id}/resend`, undefined, { token });
const mailsTo = async (email: string) => {
  await ref.stack.queues.drain();
  return (await readOutbox(ref.stack.dataDir, { to: email })).length;
};

function expectCooling(res: { status: number; body: unknown; headers: Headers }, retryAfter: number) {
  expect([res.status, res.body, res.headers.get('retry-after')]).toEqual([429, { detail: DETAIL }, String(retryAfter)]);
}

describe('resending one invitation', () => {
  it('is refused 429 with Retry-After until a minute after its last mail (the creation counts), and mails nothing then', async () => {
    const { owner, email, id } = await invitation();
    expectCooling(await resend(id, owner.token), 60);
    clock.advance(40_000);
    expectCooling(await resend(id, owner.token), 20);
    expect(await mailsTo(email)).toBe(1);
    clock.advance(20_000);
    expect((await resend(id, owner.token)).status).toBe(200);
    expectCooling(await resend(id, owner.token), 60);
    expect(await mailsTo(email)).toBe(2);
  });

  it('mails at most five times an hour; the hour is counted from the first mail', async () => {
    const { owner, email, id } = await invitation();
    for (let i = 1; i < 5; i++) {
      clock.advance(MINUTE);
      expect((await resend(id, owner.token)).status).toBe(200);
    }
    clock.advance(MINUTE);
    expectCooling(await resend(id, owner.token), 3600 - 5 * 60);
    expect(await mailsTo(email)).toBe(5);
    clock.advance(3600_000 - 5 * MINUTE);
    const token = (await api.post('/auth/login', { email: owner.email, password: PASSWORD })).body.access_token; // the first one has expired
    expect((await resend(id, token)).status).toBe(200);
    expect(await mailsTo(email)).toBe(6);
  });

  it('holds back only that invitation: another one (even to the same address) has its own', async () => {
    const { owner, projectId, email, id } = await invitation();
    const other = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    expect(other.status).toBe(201);
    expectCooling(await resend(id, owner.token), 60);
    clock.advance(MINUTE);
    expect((await resend(other.body.id, owner.token)).status).toBe(200);
    expect((await resend(id, owner.token)).status).toBe(200);
  });

  it('20 concurrent resends of one invitation mail once: one 200 and 19 × 429, round after round', async () => {
    for (let round = 0; round < 6; round++) {
      const { owner, email, id } = await invitation(uniqueEmail(`race-${round}`));
      clock.advance(MINUTE);
      const answers = await Promise.all(Array.from({ length: 20 }, () => resend(id, owner.token)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, ...Array(19).fill(429)]);
      for (const refused of answers.filter((a) => a.status === 429)) expectCooling(refused, 60);
      expect(await mailsTo(email), `round ${round}`).toBe(2);
    }
  }, 120_000);
});
