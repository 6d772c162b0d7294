import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { setPlan } from '../helpers/plans.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { launchChromium, pageProblems } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * A newcomer's path: with no APP_BASE_URL, the links the local server hands
 * out follow the port it listens on; the invitation link opens the dashboard's invitation screen
 * (it replaced a page of the local server) that accepts the invitation, in a real browser,
 * for each kind of invitee.
 */
const ref = useTestStack(); // no APP_BASE_URL, and PORT=0: any free port
const api = client(() => ref.stack.url);
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** An owner with a project who invites `email`; answers the mailed link and the project. */
async function invite(email: string) {
  const owner = await signUp(api);
  await setPlan(owner.id, 'Team');
  const { projectId } = await projectWithEnv(api, owner.token);
  const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
  expect(created.status, created.text).toBe(201);
  await ref.stack.queues.drain();
  const [mail] = await readOutbox(ref.stack.dataDir, { to: email });
  return { link: linkFrom(mail, '/invitations/accept'), projectId };
}

/** Opens the link in a fresh browser context; answers the page and what went wrong on it. */
async function open(link: URL): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const problems = await pageProblems(page);
  const res = await page.goto(link.href);
  expect(res?.status()).toBe(200);
  return { page, problems };
}

const status = (page: Page) => page.locator('#out');

async function projectsOf(email: string, password = PASSWORD): Promise<string[]> {
  const login = await api.post('/auth/login', { email, password });
  expect(login.status, login.text).toBe(200);
  const projects = await api.get('/projects', { token: login.body.access_token });
  return projects.body.map((p: { id: string }) => p.id);
}

describe('links the local server hands out', () => {
  it('point at the port it listens on when APP_BASE_URL is not set (invitation mails, the checkout page)', async () => {
    const { link } = await invite(uniqueEmail('port'));
    expect(link.origin).toBe(new URL(ref.stack.url).origin);
    expect(ref.stack.url).not.toContain(':3000');

    const buyer = await signUp(api);
    const plans = await api.get('/plans');
    const starter = plans.body.find(
      (p: { name: string; interval: string }) => p.name === 'Starter' && p.interval === 'monthly',
    );
    const chosen = await api.post('/subscriptions/choose', { plan_id: starter.id }, { token: buyer.token });
    await ref.stack.queues.drain();
    const checkout = await api.get(`/subscriptions/checkout-url/${chosen.body.job_id}`, { token: buyer.token });
    expect(checkout.status, checkout.text).toBe(200);
    const page = await (await fetch(checkout.body.url)).text();
    const cancel = /<a href="([^"]+)">Cancel<\/a>/.exec(page)![1].replaceAll('&amp;', '&');
    expect(new URL(cancel).origin).toBe(new URL(ref.stack.url).origin);
  });
});

describe("the dashboard's invitation screen (GET /invitations/accept)", () => {
  it('lets an invitee without an account choose a password and join; the password then signs in', async () => {
    const email = uniqueEmail('newcomer');
    const { link, projectId } = await invite(email);
    const { page, problems } = await open(link);
    await expect.poll(() => page.getByRole('heading', { name: 'Join a project' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Your name').fill('Nina Newcomer');
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept and create my account' }).click();
    await expect.poll(() => status(page).textContent()).toContain('Invitation accepted');
    expect(await projectsOf(email)).toEqual([projectId]);
    // Signed in by the acceptance: the link opens the project in the dashboard.
    await page.getByRole('link', { name: 'Open the project' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Environments of /);
    expect(problems).toEqual([]);
  });

  it('lets someone who registered after being invited (and whose sign-in is refused until they accept) accept with the first form', async () => {
    const email = uniqueEmail('registered');
    const { link, projectId } = await invite(email);
    expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
    const refused = await api.post('/auth/login', { email, password: PASSWORD });
    expect(refused.body).toEqual({ detail: 'Please accept your invitation via the email link before logging in' });
    const { page, problems } = await open(link);
    await page.getByLabel('E-mail address').fill(email);
    await page.locator('#existing').getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in and accept' }).click();
    await expect.poll(() => status(page).textContent()).toContain('accept with the first form');
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept and create my account' }).click();
    await expect.poll(() => status(page).textContent()).toContain('Invitation accepted');
    expect(await projectsOf(email)).toEqual([projectId]);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]); // the refused sign-in is logged by the browser
  });

  it('lets an existing account sign in and accept with the second form; a wrong password is shown, not accepted', async () => {
    const member = await signUp(api);
    const { link, projectId } = await invite(member.email);
    const { page, problems } = await open(link);
    await page.getByLabel('E-mail address').fill(member.email);
    await page.locator('#existing').getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in and accept' }).click();
    await expect.poll(() => status(page).textContent()).toBe('Invalid credentials');
    await page.locator('#existing').getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in and accept' }).click();
    await expect.poll(() => status(page).textContent()).toContain('Invitation accepted');
    expect(await projectsOf(member.email)).toContain(projectId);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]); // the refused sign-in is logged by the browser
  });

  it('says what to do with a link that lost its token, and never writes the token into the HTML', async () => {
    const { link } = await invite(uniqueEmail('tokenless'));
    const html = await (await fetch(link)).text();
    expect(html).not.toContain(link.searchParams.get('token')!);
    const { page } = await open(new URL('/invitations/accept', link));
    await expect.poll(() => status(page).textContent()).toContain('Open the link from the invitation e-mail');
  });
});
