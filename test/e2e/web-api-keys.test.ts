import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { keepScreenshot, launchChromium, pageProblems } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';
import { cancelPlan, setPlan } from '../helpers/plans.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';

/**
 * The dashboard's API keys page (`/account/api-keys`) in a real browser against a
 * local stack: a key made for CI (scopes, one project, an expiry), its value shown once with a copy
 * button and how CI uses it, the list, the plan's limit and a plan without API keys explained with a
 * link to Plan & billing, revocation after a confirmation, and the revoked key's exchange refused.
 * The page passes axe-core at 1280 and 390 px and fits the window. The tests share one page, in order.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
let owner: Awaited<ReturnType<typeof signUp>>;
let shopId: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
let key = '';
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const cards = () => page.locator('ul.api-keys > li');
/** Up to 10 s: a machine shared with other test runs. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });
const exchange = (apiKey: string) => api.post('/auth/api-key/token', { api_key: apiKey });

/** No serious or critical axe violation and nothing wider than the window, at 1280 and at 390 px. */
async function checkScreen(name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await keepScreenshot(page, `api-keys-${name}-${width}`);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  owner = await signUp(api);
  await setPlan(owner.id, 'Starter'); // two projects to choose from…
  ({ projectId: shopId } = await projectWithEnv(api, owner.token, 'Shop'));
  await projectWithEnv(api, owner.token, 'Blog');
  await setPlan(owner.id, 'Free'); // …and Free's one API key, to reach its limit
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ref.stack.url).origin });
  page = await context.newPage();
  problems = await pageProblems(page);
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await keepScreenshot(page, `api-keys-failed-${ctx.task.name.slice(0, 30)}`, true);
});
afterAll(async () => {
  await browser?.close();
});

describe('the API keys page', () => {
  it('opens from the account menu after sign-in, with no key yet', async () => {
    await page.goto(url('/sign-in?next=%2Faccount'));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/account'));
    await page.getByRole('link', { name: 'Manage API keys' }).click(); // where the keys were before they had a page
    await page.waitForURL(url('/account/api-keys'));
    await poll(() => heading().textContent()).toBe('API keys');
    expect(await page.getByRole('banner').getByRole('link', { name: 'API keys' }).getAttribute('aria-current')).toBe(
      'page',
    );
    await poll(() => page.getByText('No API key yet.').count()).toBe(1);
    await poll(() => page.locator('main').textContent()).toContain('Your plan allows 1 API key; 0 in use');
    await checkScreen('no key');
  });

  it('creates a key for CI (read and write, one project, an expiry): its value shown once, with a copy button and how CI uses it', async () => {
    await page.getByLabel('Key name', { exact: true }).fill('ci pipeline');
    await page.getByRole('checkbox', { name: /^Write/ }).check();
    await page.getByRole('checkbox', { name: 'Shop' }).check();
    await page.getByLabel('Expires on (optional)').fill('2099-12-31');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const value = page.getByLabel("The key's value");
    await poll(() => value.count()).toBe(1);
    key = await value.inputValue();
    expect(key).toMatch(/^ick_[A-Za-z0-9_-]{43}$/);
    const shown = page.getByRole('region', { name: 'API key ci pipeline created' });
    expect(await shown.textContent()).toContain('Copy it now: you will not see it again.');
    expect(await shown.textContent()).toContain('INFRACAT_API_KEY');
    expect(await shown.textContent()).toContain('A CI workflow');
    await shown.getByRole('button', { name: 'Copy' }).click();
    await poll(() => shown.getByRole('status').textContent()).toBe('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await checkScreen('new key');

    const card = cards().filter({ hasText: 'ci pipeline' });
    await poll(() => card.count()).toBe(1);
    const text = (await card.textContent())!;
    expect(text).toContain(`${key.slice(0, 12)}…`);
    expect(text).toContain('Scopesread, write');
    expect(text).toContain('ProjectsShop');
    expect(text).toContain(`Expires${new Date('2099-12-31T23:59:59').toLocaleDateString('en-US')}`);
    expect(text).toContain('Last usednever');
  });

  it('the key is exchanged for a token limited to its project; after a reload the list shows its use and never the value', async () => {
    const token = await exchange(key);
    expect(token.status, token.text).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'bearer', scopes: ['read', 'write'], project_ids: [shopId] });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.reload();
    await poll(() => cards().count()).toBe(1);
    expect(await cards().textContent()).not.toContain('Last usednever');
    expect(await page.content()).not.toContain(key);
  });

  it("explains the plan's limit: revoke a key or upgrade on Plan & billing", async () => {
    await poll(() => page.locator('main').textContent()).toContain(
      'Your plan allows 1 API key; 1 in use (metrics keys count too). To create another, revoke one',
    );
    await page.getByLabel('Key name', { exact: true }).fill('second');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.textContent()).toContain(
      "API key limit reached for your 'Free' plan (max 1). Please upgrade to create more API keys.",
    );
    expect(await alert.textContent()).toContain('Revoke a key you no longer use');
    expect(await alert.getByRole('link', { name: 'Plan & billing' }).getAttribute('href')).toBe('/account/billing');
    expect(await cards().count()).toBe(1);
    await checkScreen('limit reached');
  });

  it('revokes the key after a confirmation; its exchange is refused afterwards', async () => {
    await page.getByRole('button', { name: 'Revoke API key ci pipeline' }).click();
    expect(await page.getByRole('group', { name: /^Revoke API key ci pipeline\?/ }).count()).toBe(1);
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await poll(() => page.getByText('No API key yet.').count()).toBe(1);
    const refused = await exchange(key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid or expired API key' });
  });

  it('a plan without API keys says to choose another plan, and the link opens Plan & billing', async () => {
    await cancelPlan(owner.id);
    await page.reload();
    await page.getByLabel('Key name', { exact: true }).fill('after the plan ended');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.textContent()).toContain(
      'Your plan does not include API keys (feature: crud_pro). Please upgrade.',
    );
    expect(await alert.textContent()).toContain('Choose a plan that includes API keys');
    await alert.getByRole('link', { name: 'Plan & billing' }).click();
    await page.waitForURL(url('/account/billing'));
    await poll(() => heading().textContent()).toBe('Plan & billing');
  });

  it('showed nothing but the refusals asked for on the console', () => {
    expect(problems.filter((p) => !/status of (401|403|404)/.test(p))).toEqual([]);
  });
});
