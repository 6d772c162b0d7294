import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { keepScreenshot, launchChromium } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { connect, randomDomain } from '../helpers/sso.ts';
import { startDnsStandIn } from '../../infra/local/dns-stand-in.ts';
import { startLocalIdp, type LocalIdp } from '../../infra/local/idp.ts';

/**
 * Issue 44 item 5, the dashboard's single sign-on in Chromium against a local stack, the local IdP
 * (oidc-provider) and the DNS stand-in: "Sign in with single sign-on", the e-mail first, the IdP's
 * page, and back signed in; a refusal (an existing account) shown on the sign-in page.
 */
const dns = await startDnsStandIn();
const ref = useTestStack({ SSO_ALLOWED_ADDRESSES: '127.0.0.1', SSO_DNS_SERVERS: dns.server });
const api = client(() => ref.stack.url);
let idp: LocalIdp;
let browser: Browser;
let page: Page;
let domain: string;
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000 });

/** The screen as it is now, at 1280 and at 390 px wide: no serious axe violation, nothing wider than the window. */
async function checkScreen(name: string) {
  await checkWidth(name);
  await page.setViewportSize({ width: 390, height: 800 });
  await checkWidth(`${name}, narrow`);
  await page.setViewportSize({ width: 1280, height: 800 });
}
async function checkWidth(name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  // SCREENSHOTS=<folder> keeps a picture of each (docs/web-sso-*.png are made so)
  await keepScreenshot(page, `sso-${name}`, overflow > 0);
  const wide =
    overflow > 0
      ? await page.evaluate(
          "[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className).join(' ')",
        )
      : '';
  expect(overflow, `${name} is wider than the window: ${wide}`).toBeLessThanOrEqual(0);
}

beforeAll(async () => {
  idp = await startLocalIdp({ redirectUris: [`${ref.stack.url}/auth/sso/callback`], users: {} });
  const owner = await ownerWithEnv(api, 'Business');
  domain = randomDomain();
  await connect(api, owner.token, owner.projectId, idp, dns, [domain]);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await idp?.stop();
  await dns.stop();
});

async function signInWithSso(email: string) {
  await page.goto(`${ref.stack.url}/sign-in`);
  await page.getByRole('button', { name: 'Use single sign-on' }).click();
  await page.getByLabel('Work email').fill(email);
  await checkScreen('sign in with single sign-on');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: email }).click();
}

async function passwordSignIn(email: string, password: string) {
  await page.context().clearCookies();
  await page.goto(`${ref.stack.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await poll(() => new URL(page.url()).pathname).not.toBe('/sign-in');
}

describe('dashboard single sign-on', () => {
  it('the SSO settings page: the connection, a domain with its TXT record, Verify', async () => {
    const owner = await ownerWithEnv(api, 'Business');
    await passwordSignIn(owner.owner.email, owner.owner.password);
    await page.goto(`${ref.stack.url}/p/${owner.projectId}/sso`);
    const d = randomDomain();
    await page.getByLabel('Issuer').fill(idp.issuer);
    await page.getByLabel('Client ID').fill(idp.clientId);
    await page.getByLabel('Client secret').fill(idp.clientSecret);
    await page.getByLabel('E-mail domains').fill(d);
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.locator('ul.sso-domains').textContent()).toContain(`_infracat-challenge.${d}`);
    await checkScreen('project settings, a domain to verify');
    // Verify before the record is published: the page names the record and says what to do
    await page.getByRole('button', { name: `Verify ${d}` }).click();
    await poll(() => page.getByRole('alert').textContent()).toContain(`TXT record _infracat-challenge.${d}`);
    expect(await page.getByRole('alert').textContent()).toContain('Publish it at your DNS host');
    await checkScreen('project settings, the record not found');
    const saved = await api.get(`/projects/${owner.projectId}/sso`, { token: owner.token });
    const challenge = saved.body.domains[0];
    dns.set(challenge.txt_name, [challenge.txt_value]);
    await page.getByRole('button', { name: `Verify ${d}` }).click();
    await poll(() => page.locator('ul.sso-domains').textContent()).not.toContain('not verified');
    await checkScreen('project settings, the domain verified');
    await poll(
      async () => (await api.get(`/projects/${owner.projectId}/sso`, { token: owner.token })).body.domains[0].verified,
    ).toBe(true);
  });

  it('signs a new person in through the identity provider', async () => {
    const email = `ivy@${domain}`;
    idp.users.set('ivy', { email, email_verified: true });
    await signInWithSso(email);
    await poll(() => new URL(page.url()).pathname).not.toBe('/sign-in');
    const me = (await page.evaluate(async () => (await fetch('/auth/me')).json())) as { email: string };
    expect(me.email).toBe(email);
  });

  it('shows the refusal for an existing account', async () => {
    const email = `jack@${domain}`;
    expect((await api.post('/auth/register', { email, password: 'correct horse battery' })).status).toBe(201);
    idp.users.set('jack', { email, email_verified: true });
    await page.context().clearCookies();
    await signInWithSso(email);
    await poll(() => page.getByRole('alert').textContent()).toContain('Sign in with your password');
    await checkScreen('sign-in, an existing account refused');
  });

  it('the holder links single sign-on from the account page, and it is listed there', async () => {
    const email = `kim@${domain}`;
    expect((await api.post('/auth/register', { email, password: 'correct horse battery' })).status).toBe(201);
    idp.users.set('kim', { email, email_verified: true });
    await passwordSignIn(email, 'correct horse battery');
    await page.goto(`${ref.stack.url}/account#single-sign-on`);
    const part = page.locator('section#single-sign-on');
    await poll(() => part.textContent()).toContain('No identity is linked');
    await checkScreen('account, nothing linked');
    await part.getByLabel('Current password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Link single sign-on' }).click();
    await page.getByRole('button', { name: email }).click();
    await poll(() => new URL(page.url()).pathname).toBe('/account');
    await poll(() => page.locator('ul.sso-identities').textContent()).toContain(email);
    await checkScreen('account, a linked identity');
  });

  it('says what to do next for an address whose domain has no single sign-on, on the sign-in page', async () => {
    await page.context().clearCookies();
    await page.goto(`${ref.stack.url}/sign-in`);
    await page.getByRole('button', { name: 'Use single sign-on' }).click();
    await page.getByLabel('Work email').fill(`lee@${randomDomain()}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await poll(() => page.getByRole('alert').textContent()).toContain('No single sign-on for this e-mail domain');
    expect(await page.getByRole('alert').textContent()).toContain('sign in with your password');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await checkScreen('sign in with single sign-on, no connection for the domain');
  });
});
