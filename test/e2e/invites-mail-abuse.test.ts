import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, uniqueEmail, PASSWORD } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { setPlan } from '../helpers/plans.ts';
import { readOutbox } from '../helpers/outbox.ts';

const PER_PROJECT = 3;
const PER_INVITER = 5;
const HOUR = 3_600_000;

const clock = frozenClock();
const ref = useTestStack(
  {
    APP_BASE_URL: 'https://catalog.example.test',
    INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR: String(PER_PROJECT),
    INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR: String(PER_INVITER),
  },
  { clock },
);
const api = client(() => ref.stack.url);

const invite = (token: string, projectId: string, extra: object = {}) =>
  api.post('/invites', { project_id: projectId, invited_email: uniqueEmail('mailed'), ...extra }, { token });

/** A fresh access token once the frozen clock has moved past the first one's lifetime. */
const signInAgain = async (email: string) =>
  (await api.post('/auth/login', { email, password: PASSWORD })).body.access_token as string;

async function ownerWithProject() {
  const owner = await signUp(api);
  return { owner, ...(await projectWithEnv(api, owner.token)) };
}

async function expectRateLimited(res: { status: number; body: unknown; headers: Headers }, maxSeconds = 3600) {
  expect([res.status, res.body]).toEqual([429, { detail: 'Too many requests' }]);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

describe('invitation mail limits (per project and per inviter, per hour)', () => {
  it(`the invitation after ${PER_PROJECT} in one project within the hour is 429 with Retry-After, and is not created nor mailed`, async () => {
    const { owner, projectId } = await ownerWithProject();
    for (let i = 0; i < PER_PROJECT; i++) expect((await invite(owner.token, projectId)).status).toBe(201);
    clock.advance(10 * 60_000);
    const email = uniqueEmail('one-too-many');
    const refused = await invite(owner.token, projectId, { invited_email: email });
    await expectRateLimited(refused, 3600 - 600);
    expect(Number(refused.headers.get('retry-after'))).toBe(3600 - 600);
    expect((await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body).toHaveLength(PER_PROJECT);
    await ref.stack.queues.drain();
    expect(await readOutbox(ref.stack.dataDir, { to: email })).toEqual([]);

    clock.advance(50 * 60_000); // the hour is over
    expect((await invite(await signInAgain(owner.email), projectId, { invited_email: email })).status).toBe(201);
  });

  it('resends count too', async () => {
    const { owner, projectId } = await ownerWithProject();
    const created = await invite(owner.token, projectId);
    for (let i = 1; i < PER_PROJECT; i++) {
      clock.advance(60_000); // past the invitation's own one-a-minute cooldown
      expect((await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token })).status).toBe(
        200,
      );
    }
    clock.advance(60_000);
    await expectRateLimited(await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token }));
    await expectRateLimited(await invite(owner.token, projectId));
  });

  it(`one inviter gets ${PER_INVITER} across all their projects`, async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Business');
    const first = await projectWithEnv(api, owner.token);
    const second = await projectWithEnv(api, owner.token);
    for (let i = 0; i < PER_PROJECT; i++) expect((await invite(owner.token, first.projectId)).status).toBe(201);
    for (let i = PER_PROJECT; i < PER_INVITER; i++)
      expect((await invite(owner.token, second.projectId)).status).toBe(201);
    await expectRateLimited(await invite(owner.token, second.projectId)); // the second project has room, the inviter has none
    // Another owner's project is not affected.
    const other = await ownerWithProject();
    expect((await invite(other.owner.token, other.projectId)).status).toBe(201);
    clock.advance(HOUR);
    expect((await invite(await signInAgain(owner.email), second.projectId)).status).toBe(201);
  });
});

describe('names in invitation mail', () => {
  // C0 (CR, LF, TAB, BEL, ESC, VT, FF), DEL and C1 (NEL, CSI) characters, and the Unicode line separator.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters in sent mail
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters in sent mail
  const CONTROL_EXCEPT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

  it('are stripped of control characters (CR/LF included) in the subject, the plain-text part and the HTML part', async () => {
    const owner = await api.post('/auth/register', {
      email: uniqueEmail('owner'),
      password: PASSWORD,
      name: 'Mallory\r\nBcc: victim@example.com\u0085X',
    });
    expect(owner.status, owner.text).toBe(201);
    const token = (await api.post('/auth/login', { email: owner.body.email, password: PASSWORD })).body.access_token;
    const project = await api.post(
      '/projects',
      { name: 'Ops\r\n\r\nClick http://evil.example\u001b[31m\u009b' },
      { token },
    );
    expect(project.status, project.text).toBe(201);
    const email = uniqueEmail('target');
    const res = await invite(token, project.body.id, {
      invited_email: email,
      first_name: 'Eve\r\nSubject: hi\u0007\u000b\u000c\u2028there',
      last_name: 'X\ry',
    });
    expect(res.status, res.text).toBe(201);
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: email });

    expect(mail.subject).not.toMatch(CONTROL);
    expect(mail.subject).toBe(
      'Mallory Bcc: victim@example.com X invited you to Ops Click http://evil.example [31m on Infrastructure Catalog',
    );
    expect(mail.text).not.toMatch(CONTROL_EXCEPT_LF);
    const lines = mail.text.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Hello Eve Subject: hi there,',
      '',
      'Mallory Bcc: victim@example.com X invited you to join the project "Ops Click http://evil.example [31m" on Infrastructure Catalog.',
    ]);
    expect(lines).toHaveLength(8); // no name added a line of its own
    expect(mail.html).not.toMatch(CONTROL_EXCEPT_LF);
    expect(mail.html).toContain('<p>Hello Eve Subject: hi there,</p>');
  });

  it('fall back as for a missing name when nothing but control characters is left', async () => {
    const owner = await api.post('/auth/register', {
      email: uniqueEmail('blank'),
      password: PASSWORD,
      name: '\u0085\u0007\u0008',
    });
    expect(owner.status, owner.text).toBe(201);
    const token = (await api.post('/auth/login', { email: owner.body.email, password: PASSWORD })).body.access_token;
    const { projectId } = await projectWithEnv(api, token, 'Plain');
    const email = uniqueEmail('blank-target');
    expect((await invite(token, projectId, { invited_email: email, first_name: '\u0007\u001b' })).status).toBe(201);
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: email });
    expect(mail.subject).toBe(`${owner.body.email} invited you to Plain on Infrastructure Catalog`);
    expect(mail.text.split('\n')[0]).toBe('Hello,');
  });
});
