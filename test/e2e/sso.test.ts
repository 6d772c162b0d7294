import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INFRACAT_BIN } from '../helpers/infracat-binary.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, type Client } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { bindingCookie, connect, randomDomain, ssoFlow } from '../helpers/sso.ts';
import { throughIdp } from '../helpers/idp-browser.ts';
import { startForgingIdp, type ForgingIdp } from '../helpers/forging-idp.ts';
import { startDnsStandIn } from '../../infra/local/dns-stand-in.ts';
import { startLocalIdp, type LocalIdp } from '../../infra/local/idp.ts';

const dns = await startDnsStandIn();
const ref = useTestStack({ SSO_ALLOWED_ADDRESSES: '127.0.0.1', SSO_DNS_SERVERS: dns.server });
const api = client(() => ref.stack.url);
/** The honest IdP of the company, a second (rogue) one configured by another project's owner, and one that forges tokens. */
let idp: LocalIdp;
let rogue: LocalIdp;
let forger: ForgingIdp;
beforeAll(async () => {
  const redirectUris = [`${ref.stack.url}/auth/sso/callback`];
  [idp, rogue, forger] = await Promise.all([
    startLocalIdp({ redirectUris, users: {} }),
    startLocalIdp({ redirectUris, users: {}, clientId: 'rogue' }),
    startForgingIdp(),
  ]);
});
afterAll(async () => {
  await Promise.all([idp?.stop(), rogue?.stop(), forger?.stop()]);
  await dns.stop();
});

let n = 0;
const sub = () => `sub-${Date.now().toString(36)}-${n++}`;
const exchange = (code: string | null) => api.post('/auth/sso/token', { login_code: code });
/** No account holds `email`: registering it succeeds (the proof that a refusal created nothing). */
async function noAccount(a: Client, email: string) {
  const reg = await a.post('/auth/register', { email, password: PASSWORD });
  expect(reg.status, reg.text).toBe(201);
}

/**
 * Nothing came of a refused sign-in: no member of the project has `email`; no account holds it (registering
 * it succeeds) unless one did before (`existing`); and the identity `sub` of the IdP is linked to no account:
 * the same identity, honest now (`honest` makes the IdP assert a fresh, verified address of the domain),
 * signs a new account in under that fresh address rather than entering one the refusal made.
 */
async function nothingCreated(
  c: { token: string; projectId: string; domain: string },
  email: string,
  identity: { sub: string; honest: (email: string) => void },
  existing = false,
) {
  const members = await api.get(`/projects/members/${c.projectId}`, { token: c.token });
  expect(members.status, members.text).toBe(200);
  expect(members.body.map((m: { email: string }) => m.email)).not.toContain(email);
  if (!existing) await noAccount(api, email);
  const fresh = `fresh-${n++}@${c.domain}`;
  identity.honest(fresh);
  const tokens = await exchange((await ssoFlow(api, ref.stack.url, { email: fresh, sub: identity.sub })).loginCode);
  expect(tokens.status, tokens.text).toBe(200);
  expect((await api.get('/auth/me', { token: tokens.body.access_token })).body.email).toBe(fresh);
}
const honestAt = (provider: LocalIdp, sub: string) => ({
  sub,
  honest: (email: string) => provider.users.set(sub, { email, email_verified: true }),
});
const honestForger = (sub: string) => ({ sub, honest: (email: string) => (forger.next = { sub, email }) });

/** A Business owner's project with a verified domain connected to `provider`. */
async function company(
  provider: { issuer: string; clientId: string; clientSecret: string } = idp,
  extra: Record<string, unknown> = {},
) {
  const owner = await ownerWithEnv(api, 'Business');
  const domain = randomDomain();
  await connect(api, owner.token, owner.projectId, provider, dns, [domain], extra);
  return { ...owner, domain };
}

describe('SSO connection', () => {
  it("is the owner's, on a plan with sso; GET hides the secret; a kept domain keeps its verification; DELETE releases it", async () => {
    const team = await ownerWithEnv(api, 'Team');
    const refused = await api.put(
      `/projects/${team.projectId}/sso`,
      { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, domains: [] },
      { token: team.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('(feature: sso)');

    const c = await company();
    expect((await api.get(`/projects/${team.projectId}/sso`, { token: team.token })).status).toBe(403);
    const got = await api.get(`/projects/${c.projectId}/sso`, { token: c.token });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(idp.clientSecret);
    expect(got.body.domains).toEqual([
      expect.objectContaining({ domain: c.domain, verified: true, txt_name: `_infracat-challenge.${c.domain}` }),
    ]);
    const second = randomDomain();
    const again = await api.put(
      `/projects/${c.projectId}/sso`,
      { issuer: idp.issuer, client_id: idp.clientId, domains: [c.domain, second], required: false, jit_role: null },
      { token: c.token },
    );
    expect(again.status, again.text).toBe(200);
    expect(again.body.domains).toEqual([
      expect.objectContaining({ domain: c.domain, verified: true }),
      expect.objectContaining({ domain: second, verified: false }),
    ]);

    const member = await signUp(api);
    await api.post(`/environments/${c.envId}/roles`, { user_id: member.id, role: 'administrator' }, { token: c.token });
    expect((await api.get(`/projects/${c.projectId}/sso`, { token: member.token })).status).toBe(403);

    expect((await api.delete(`/projects/${c.projectId}/sso`, undefined, { token: c.token })).status).toBe(204);
    const gone = await api.get(`/projects/${c.projectId}/sso`, { token: c.token });
    expect([gone.status, gone.body.detail]).toEqual([404, 'SSO connection not found']);
    const audit = await api.get(`/projects/${c.projectId}/audit-log?entity_id=${c.projectId}`, { token: c.token });
    expect(audit.body.map((e: { action: string }) => e.action).filter((a: string) => a.startsWith('sso_'))).toEqual([
      'sso_connection.delete',
      'sso_connection.update',
      'sso_connection.verify_domain',
      'sso_connection.create',
    ]);
    expect(audit.text).not.toContain(idp.clientSecret);
    // released: another project may claim and verify the domain now
    const other = await company();
    await connect(api, other.token, other.projectId, idp, dns, [c.domain]);
  });

  it('refuses a bad issuer with 422 saying what was wrong, and addresses outside the rule', async () => {
    const owner = await ownerWithEnv(api, 'Business');
    const put = (issuer: string) =>
      api.put(
        `/projects/${owner.projectId}/sso`,
        { issuer, client_id: 'x', client_secret: 'y', domains: [] },
        { token: owner.token },
      );
    const wrongPath = await put(`${idp.issuer}/elsewhere`);
    expect(wrongPath.status).toBe(422);
    expect(wrongPath.body.detail[0].loc).toEqual(['body', 'issuer']);
    const privateAddress = await put('http://10.1.2.3/');
    expect(privateAddress.status).toBe(422);
    expect(privateAddress.body.detail[0].msg).toContain('public addresses');
  });

  it('verifies a domain by its TXT record (422 naming it when absent), and a verified domain cannot be claimed by another project (409)', async () => {
    const owner = await ownerWithEnv(api, 'Business');
    const domain = randomDomain();
    const put = await api.put(
      `/projects/${owner.projectId}/sso`,
      { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, domains: [domain] },
      { token: owner.token },
    );
    expect(put.status, put.text).toBe(200);
    const missing = await api.post(`/projects/${owner.projectId}/sso/domains/${domain}/verify`, undefined, {
      token: owner.token,
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].msg).toContain(`_infracat-challenge.${domain}`);
    await connect(api, owner.token, owner.projectId, idp, dns, [domain]);

    const other = await ownerWithEnv(api, 'Business');
    const claimed = await api.put(
      `/projects/${other.projectId}/sso`,
      { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, domains: [domain] },
      { token: other.token },
    );
    expect(claimed.status).toBe(409);
  });
});

describe('SSO sign-in: the account rule', () => {
  it('a new person is created just in time, a member with the JIT role; the same identity signs into the same account again', async () => {
    const c = await ownerWithEnv(api, 'Business');
    const domain = randomDomain();
    await connect(api, c.token, c.projectId, idp, dns, [domain], {
      jit_role: { environment_id: c.envId, role: 'viewer' },
    });
    const email = `alice@${domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: s });
    expect(flow.res.status, flow.res.text).toBe(302);
    expect(flow.res.headers.get('location')).toMatch(new RegExp(`^${ref.stack.url}/signed-in\\?login_code=`));
    const tokens = await exchange(flow.loginCode);
    expect(tokens.status, tokens.text).toBe(200);
    const me = await api.get('/auth/me', { token: tokens.body.access_token });
    expect(me.body.email).toBe(email);
    const log = await api.get('/auth/me/security-log', { token: tokens.body.access_token });
    expect(log.body).toContainEqual(
      expect.objectContaining({
        event: 'sign_in.succeeded',
        details: expect.objectContaining({ method: 'sso', issuer: idp.issuer }),
      }),
    );
    const roles = await api.get(`/environments/${c.envId}/roles`, { token: c.token });
    expect(roles.body).toContainEqual(expect.objectContaining({ user_id: me.body.id, role: 'viewer' }));
    const joined = await api.get(`/projects/${c.projectId}/audit-log?entity_id=${me.body.id}`, { token: c.token });
    expect(joined.body).toEqual([
      expect.objectContaining({ action: 'member.create', summary: expect.objectContaining({ via: 'sso' }) }),
    ]);
    // the code is single use
    expect((await exchange(flow.loginCode)).status).toBe(400);

    const again = await ssoFlow(api, ref.stack.url, { email, sub: s });
    const second = await exchange(again.loginCode);
    expect((await api.get('/auth/me', { token: second.body.access_token })).body.id).toBe(me.body.id);
  });

  it("an e-mail outside the connection's verified domains is refused (403) and nothing is created", async () => {
    const c = await company();
    const unverified = randomDomain();
    await api.put(
      `/projects/${c.projectId}/sso`,
      { issuer: idp.issuer, client_id: idp.clientId, domains: [c.domain, unverified], required: false, jit_role: null },
      { token: c.token },
    );
    const s = sub();
    idp.users.set(s, { email: `bob@${unverified}`, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email: `bob@${c.domain}`, sub: s });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([
      403,
      'This e-mail domain is not verified for this single sign-on connection',
    ]);
    await nothingCreated(c, `bob@${unverified}`, honestAt(idp, s));
  });

  it('an existing account is never entered (409); once linked from the account itself, SSO signs into it', async () => {
    const c = await company();
    const person = await signUp(api, `carol-${n++}@${c.domain}`);
    const s = sub();
    idp.users.set(s, { email: person.email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email: person.email, sub: s });
    const refused = await exchange(flow.loginCode);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('Sign in with your password');
    const log = await api.get('/auth/me/security-log', { token: person.token });
    expect(log.body).toContainEqual(
      expect.objectContaining({ event: 'sign_in.refused', reason: 'sso_account_exists' }),
    );

    // linking needs the password again
    const noPassword = await api.post(
      '/auth/sso/link',
      { return_to: `${ref.stack.url}/settings` },
      { token: person.token },
    );
    expect(noPassword.status).toBe(401);
    const link = await api.post(
      '/auth/sso/link',
      { current_password: PASSWORD, return_to: `${ref.stack.url}/settings` },
      { token: person.token },
    );
    expect(link.status, link.text).toBe(200);
    const linked = await ssoFlow(api, ref.stack.url, {
      email: person.email,
      sub: s,
      startUrl: link.body.authorization_url,
    });
    expect((await exchange(linked.loginCode)).status).toBe(200);

    const later = await ssoFlow(api, ref.stack.url, { email: person.email, sub: s });
    const tokens = await exchange(later.loginCode);
    expect(tokens.status).toBe(200);
    expect((await api.get('/auth/me', { token: tokens.body.access_token })).body.id).toBe(person.id);

    // the holder lists and unlinks it; SSO then no longer enters the account
    const identities = await api.get('/auth/me/sso/identities', { token: person.token });
    expect(identities.body).toEqual([expect.objectContaining({ issuer: idp.issuer, sub: s, email: person.email })]);
    expect(
      (await api.delete(`/auth/me/sso/identities/${identities.body[0].id}`, undefined, { token: person.token })).status,
    ).toBe(204);
    expect((await api.get('/auth/me/sso/identities', { token: person.token })).body).toEqual([]);
    const afterUnlink = await ssoFlow(api, ref.stack.url, { email: person.email, sub: s });
    expect((await exchange(afterUnlink.loginCode)).status).toBe(409);
  });
});

describe('password reset and SSO links', () => {
  it('a password reset neither removes nor adds a link: the linked identity still signs into the account', async () => {
    const c = await company();
    const person = await signUp(api, `quinn-${n++}@${c.domain}`);
    const s = sub();
    idp.users.set(s, { email: person.email, email_verified: true });
    const link = await api.post(
      '/auth/sso/link',
      { current_password: PASSWORD, return_to: `${ref.stack.url}/settings` },
      { token: person.token },
    );
    expect(
      (
        await exchange(
          (
            await ssoFlow(api, ref.stack.url, { email: person.email, sub: s, startUrl: link.body.authorization_url })
          ).loginCode,
        )
      ).status,
    ).toBe(200);

    expect((await api.post('/auth/password/reset', { email: person.email })).status).toBe(200);
    await ref.stack.queues.drain();
    const mails = await readOutbox(ref.stack.dataDir, { to: person.email });
    const token = linkFrom(mails[mails.length - 1], '/reset-password').searchParams.get('token');
    expect(
      (await api.post('/auth/password/reset/confirm', { token, new_password: 'a brand new passphrase' })).status,
    ).toBe(200);

    const relogin = await api.post('/auth/login', { email: person.email, password: 'a brand new passphrase' });
    expect((await api.get('/auth/me/sso/identities', { token: relogin.body.access_token })).body).toHaveLength(1);
    const tokens = await exchange((await ssoFlow(api, ref.stack.url, { email: person.email, sub: s })).loginCode);
    expect((await api.get('/auth/me', { token: tokens.body.access_token })).body.id).toBe(person.id);
  });
});

describe("SSO sign-in: a rogue identity provider never enters another person's account", () => {
  it("with the victim's domain: the claim is refused (409); with its own domain: the victim's address is refused (403); with the victim's sub: another issuer's identity", async () => {
    const victimCo = await company();
    const victim = await signUp(api, `victim-${n++}@${victimCo.domain}`);
    // the victim links their real identity
    const victimSub = sub();
    idp.users.set(victimSub, { email: victim.email, email_verified: true });
    const link = await api.post(
      '/auth/sso/link',
      { current_password: PASSWORD, return_to: `${ref.stack.url}/settings` },
      { token: victim.token },
    );
    await exchange(
      (
        await ssoFlow(api, ref.stack.url, {
          email: victim.email,
          sub: victimSub,
          startUrl: link.body.authorization_url,
        })
      ).loginCode,
    );

    const attacker = await ownerWithEnv(api, 'Business');
    const put = await api.put(
      `/projects/${attacker.projectId}/sso`,
      {
        issuer: rogue.issuer,
        client_id: rogue.clientId,
        client_secret: rogue.clientSecret,
        domains: [victimCo.domain],
      },
      { token: attacker.token },
    );
    expect([put.status, put.body.detail]).toEqual([409, 'This domain is already claimed by another project']);

    const own = randomDomain();
    await connect(api, attacker.token, attacker.projectId, rogue, dns, [own]);
    // the rogue IdP asserts the victim's address, verified, under the victim's own sub
    rogue.users.set(victimSub, { email: victim.email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email: `anyone@${own}`, sub: victimSub });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([
      403,
      'This e-mail domain is not verified for this single sign-on connection',
    ]);
    expect(refused.body).not.toHaveProperty('access_token');
    // the victim's account holds only its own identity; the attacker's project did not gain the victim
    const victimIds = await api.get('/auth/me/sso/identities', { token: victim.token });
    expect(victimIds.body).toEqual([expect.objectContaining({ issuer: idp.issuer, sub: victimSub })]);
    await nothingCreated({ ...attacker, domain: own }, victim.email, honestAt(rogue, victimSub), true);
  });

  it("naming the victim's domain unverified in its own connection: the victim's address is refused (403), nothing created", async () => {
    const victimDomain = randomDomain();
    const victim = await signUp(api, `victim-${n++}@${victimDomain}`);
    const attacker = await ownerWithEnv(api, 'Business');
    const own = randomDomain();
    // the attacker lists the victim's domain, but cannot publish its TXT record: it stays unverified
    await connect(api, attacker.token, attacker.projectId, rogue, dns, [own, victimDomain], {}, [victimDomain]);
    const s = sub();
    rogue.users.set(s, { email: victim.email, email_verified: true });
    const direct = await api.get(
      `/auth/sso/start?${new URLSearchParams({ email: victim.email, return_to: `${ref.stack.url}/x` })}`,
    );
    expect([direct.status, direct.body.detail]).toEqual([404, 'No single sign-on for this e-mail domain']);
    const flow = await ssoFlow(api, ref.stack.url, { email: `anyone@${own}`, sub: s });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([
      403,
      'This e-mail domain is not verified for this single sign-on connection',
    ]);
    expect(refused.body).not.toHaveProperty('access_token');
    expect((await api.get('/auth/me/sso/identities', { token: victim.token })).body).toEqual([]);
    await nothingCreated({ ...attacker, domain: own }, victim.email, honestAt(rogue, s), true);
  });

  it('with a domain it verified itself, the existing account of that address is still not entered (409)', async () => {
    const attacker = await company(rogue);
    const victim = await signUp(api, `victim-${n++}@${attacker.domain}`);
    const s = sub();
    rogue.users.set(s, { email: victim.email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email: victim.email, sub: s });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([
      409,
      'An account with this e-mail already exists. Sign in with your password, then link single sign-on from your account settings.',
    ]);
    expect(refused.body).not.toHaveProperty('access_token');
    expect((await api.get('/auth/me/sso/identities', { token: victim.token })).body).toEqual([]);
    await nothingCreated(attacker, victim.email, honestAt(rogue, s), true);
  });
});

describe('SSO sign-in: every forged or unverified answer is refused with nothing created', () => {
  it('refuses email_verified false and a missing email_verified (403)', async () => {
    const c = await company();
    for (const verified of [false, undefined]) {
      const email = `eve-${n++}@${c.domain}`;
      const s = sub();
      idp.users.set(s, { email, email_verified: verified });
      const flow = await ssoFlow(api, ref.stack.url, { email, sub: s });
      const refused = await exchange(flow.loginCode);
      expect([refused.status, refused.body.detail]).toEqual([
        403,
        'The identity provider has not verified this e-mail address',
      ]);
      await nothingCreated(c, email, honestAt(idp, s));
    }
  });

  it.each([
    ['a wrong nonce', { nonce: 'not-the-one-sent' }],
    ['a wrong audience', { aud: 'someone-else' }],
    ['an expired ID token', { expIn: -600 }],
    ['a token signed by another key', { otherKey: true }],
  ])('refuses %s (401)', async (_name, forgery) => {
    const c = await company(forger);
    const email = `mallory-${n++}@${c.domain}`;
    const s = sub();
    forger.next = { sub: s, email, ...forgery };
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: s });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([
      401,
      "Single sign-on failed: the identity provider's answer was refused",
    ]);
    expect(refused.body).not.toHaveProperty('access_token');
    await nothingCreated(c, email, honestForger(s));
  });

  it("the forging IdP, when honest, signs in (the refusals above are the forgeries')", async () => {
    const c = await company(forger);
    const email = `honest-${n++}@${c.domain}`;
    forger.next = { sub: sub(), email };
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: 'unused' });
    expect((await exchange(flow.loginCode)).status).toBe(200);
  });

  it('a replayed state is 400 and creates nothing more', async () => {
    const c = await company();
    const email = `dave-${n++}@${c.domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: s });
    expect(flow.res.status).toBe(302);
    const replay = await api.get(flow.callbackPath, { cookie: flow.cookie });
    expect([replay.status, replay.body.detail]).toEqual([400, 'Invalid or expired sign-in state']);
    expect(replay.headers.get('location')).toBeNull();
    // the first callback's account is the only one: one member with the address, one identity linked to it
    const members = await api.get(`/projects/members/${c.projectId}`, { token: c.token });
    expect(members.body.filter((m: { email: string }) => m.email === email)).toHaveLength(1);
    const tokens = await exchange(flow.loginCode);
    expect(tokens.status, tokens.text).toBe(200);
    const identities = await api.get('/auth/me/sso/identities', { token: tokens.body.access_token });
    expect(identities.body).toEqual([expect.objectContaining({ issuer: idp.issuer, sub: s, email })]);
  });

  it('a state replayed after a refusal is 400 too, and creates nothing', async () => {
    const c = await company();
    const email = `ursula-${n++}@${c.domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: false });
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: s });
    expect(flow.res.status).toBe(302);
    // the IdP would now vouch for the address: a replay of the refused answer's state must not profit from it
    idp.users.set(s, { email, email_verified: true });
    const replay = await api.get(flow.callbackPath, { cookie: flow.cookie });
    expect([replay.status, replay.body.detail]).toEqual([400, 'Invalid or expired sign-in state']);
    expect((await exchange(flow.loginCode)).status).toBe(403);
    await nothingCreated(c, email, honestAt(idp, s));
  });

  it('a sign-in finished in another browser than the one that started it is 400 (no login CSRF)', async () => {
    const c = await company();
    const email = `oscar-${n++}@${c.domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const flow = await ssoFlow(api, ref.stack.url, { email, sub: s, otherBrowser: true });
    expect([flow.res.status, flow.res.body.detail]).toEqual([400, 'Invalid or expired sign-in state']);
    await nothingCreated(c, email, honestAt(idp, s));
  });

  it("a link finishes only with an identity of the linking account's own address (403 otherwise)", async () => {
    const c = await company();
    const person = await signUp(api, `pat-${n++}@${c.domain}`);
    const s = sub();
    idp.users.set(s, { email: `someone-else-${n++}@${c.domain}`, email_verified: true });
    const link = await api.post(
      '/auth/sso/link',
      { current_password: PASSWORD, return_to: `${ref.stack.url}/settings` },
      { token: person.token },
    );
    const flow = await ssoFlow(api, ref.stack.url, {
      email: person.email,
      sub: s,
      startUrl: link.body.authorization_url,
    });
    const refused = await exchange(flow.loginCode);
    expect([refused.status, refused.body.detail]).toEqual([403, "The identity's e-mail address is not this account's"]);
    expect((await api.get('/auth/me/sso/identities', { token: person.token })).body).toEqual([]);
  });
});

describe('required single sign-on', () => {
  it("refuses a member's password session (403) and not their SSO session; the owner keeps password access, audited; API keys keep working", async () => {
    const c = await ownerWithEnv(api, 'Business');
    const domain = randomDomain();
    await connect(api, c.token, c.projectId, idp, dns, [domain], {
      required: true,
      jit_role: { environment_id: c.envId, role: 'viewer' },
    });
    const envs = (token: string) => api.get(`/environments?project_id=${c.projectId}`, { token });

    const member = await signUp(api);
    await api.post(`/environments/${c.envId}/roles`, { user_id: member.id, role: 'viewer' }, { token: c.token });
    const refused = await envs(member.token);
    expect([refused.status, refused.body.detail]).toEqual([403, 'This project requires single sign-on']);

    const email = `grace@${domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const tokens = await exchange((await ssoFlow(api, ref.stack.url, { email, sub: s })).loginCode);
    expect((await envs(tokens.body.access_token)).status).toBe(200);

    expect((await envs(c.token)).status).toBe(200);
    expect((await envs(c.token)).status).toBe(200);
    const audit = await api.get(`/projects/${c.projectId}/audit-log?entity_id=${c.projectId}`, { token: c.token });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.filter((e: { action: string }) => e.action === 'sso_connection.break_glass')).toHaveLength(1);

    const key = await api.post('/me/api-keys', { name: 'ci' }, { token: member.token });
    expect(key.status, key.text).toBe(201);
    const exchanged = await api.post('/auth/api-key/token', { api_key: key.body.key });
    expect(exchanged.status, exchanged.text).toBe(200);
    expect((await envs(exchanged.body.access_token)).status).toBe(200);
  });
});

describe('SSO callback budget', () => {
  it("a just-in-time sign-in's callback makes 4 DynamoDB calls in 3 round trips (state ‖ connection, identity and e-mail, one transaction)", async () => {
    const c = await company();
    const email = `rita-${n++}@${c.domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const start = await api.get(`/auth/sso/start?${new URLSearchParams({ email, return_to: `${ref.stack.url}/x` })}`);
    const callback = await throughIdp(start.headers.get('location')!, s, `${ref.stack.url}/auth/sso/callback`);
    const spy = vi.spyOn(DynamoDBDocumentClient.prototype, 'send');
    const res = await api.get(callback.slice(ref.stack.url.length), { cookie: bindingCookie(start.cookies) });
    const calls = spy.mock.calls.map(([command]) => (command as object).constructor.name);
    spy.mockRestore();
    expect(res.status).toBe(302);
    expect(calls.sort()).toEqual(['BatchGetCommand', 'BatchGetCommand', 'DeleteCommand', 'TransactWriteCommand']);
  });
});

describe('SSO start', () => {
  it('refuses return_to on a foreign origin (400), allows a loopback address, and 404s an address without a verified domain', async () => {
    const c = await company();
    const email = `frank@${c.domain}`;
    const foreign = await api.get(
      `/auth/sso/start?${new URLSearchParams({ email, return_to: 'https://evil.example/steal' })}`,
    );
    expect([foreign.status, foreign.body.detail]).toEqual([400, 'return_to must be this site or a loopback address']);
    const loopback = await api.get(
      `/auth/sso/start?${new URLSearchParams({ email, return_to: 'http://127.0.0.1:53682/callback' })}`,
    );
    expect(loopback.status).toBe(302);
    expect(loopback.headers.get('location')).toContain('code_challenge_method=S256');
    const none = await api.get(
      `/auth/sso/start?${new URLSearchParams({ email: `frank@${randomDomain()}`, return_to: `${ref.stack.url}/x` })}`,
    );
    expect([none.status, none.body.detail]).toEqual([404, 'No single sign-on for this e-mail domain']);
  });
});

describe('infracat login --sso', () => {
  it('prints the address, takes the login code on its loopback redirect, and is signed in', async () => {
    const c = await company();
    const email = `henry@${c.domain}`;
    const s = sub();
    idp.users.set(s, { email, email_verified: true });
    const configDir = await mkdtemp(join(tmpdir(), 'infracat-sso-'));
    const env: Record<string, string | undefined> = {
      ...process.env,
      INFRACAT_CONFIG_DIR: configDir,
      INFRACAT_NO_BROWSER: '1',
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    };
    for (const k of ['INFRACAT_URL', 'INFRACAT_EMAIL', 'INFRACAT_PASSWORD', 'INFRACAT_API_KEY']) delete env[k];
    const child = spawn(INFRACAT_BIN, ['login', '--sso', '--email', email, '--url', ref.stack.url, '-o', 'json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    const address = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /(http\S+\/auth\/sso\/start\S+)/.exec(stderr);
        if (m) resolve(m[1]);
      });
      child.on('close', () => reject(new Error(`infracat ended: ${stderr}`)));
    });
    expect(new URL(address).searchParams.get('return_to')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // the browser: the service's start, the IdP, the callback, and back to the CLI's loopback address
    const start = await api.get(address.slice(ref.stack.url.length));
    expect(start.status).toBe(302);
    const callback = await throughIdp(start.headers.get('location')!, s, `${ref.stack.url}/auth/sso/callback`);
    const back = await api.get(callback.slice(ref.stack.url.length), { cookie: bindingCookie(start.cookies) });
    expect(back.status).toBe(302);
    const loopback = await fetch(back.headers.get('location')!);
    expect(loopback.status).toBe(200);
    const code = await new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.on('close', resolve),
    );
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ email, url: ref.stack.url });
    await rm(configDir, { recursive: true, force: true });
  });
});
