import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { createFloor, createService } from '../helpers/catalog.ts';
import { keepScreenshot, launchChromium, pageProblems, settled } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * The archived items screen (`/account/billing/archived`) in a real browser: what
 * is archived, by kind, restored within the plan's limits; the API's refusal over a limit shown as
 * it answers, nothing of that selection restored. Every state passes axe at 1280 and 390 px.
 */
vi.setConfig({ testTimeout: 90_000 });
const ref = useTestStack();
const api = client(() => ref.stack.url);
let browser: Browser;
let page: Page;
let problems: string[];
let owner: Awaited<ReturnType<typeof signUp>>;
let projectId: string;
let envId: string;
const ids: Record<string, string> = {};
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });
const listed = (legend: string) =>
  page
    .locator('fieldset.archive-kind', { has: page.locator('legend', { hasText: legend }) })
    .locator('label')
    .allTextContents();

/** No serious or critical axe violation and nothing wider than the window, at 1280 and at 390 px. */
async function checkScreen(name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await keepScreenshot(page, `restore-${name}-${width}`);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  // The Free plan: five services per project. Two of five archived, two more made: full again.
  owner = await signUp(api);
  ({ projectId, envId } = await projectWithEnv(api, owner.token, 'Shop'));
  for (const name of ['api', 'web', 'worker', 'legacy-cron', 'old-report'])
    ids[name] = (await createService(api, owner.token, projectId, envId, { name })).id;
  ids['db-1'] = (await createFloor(api, owner.token, projectId, envId, { hostname: 'db-1' })).id;
  const archived = await api.post(
    '/me/mark-archived',
    { services: [ids['legacy-cron'], ids['old-report']], service_floors: [ids['db-1']] },
    { token: owner.token },
  );
  expect(archived.status, archived.text).toBe(200);
  for (const name of ['search', 'mailer'])
    ids[name] = (await createService(api, owner.token, projectId, envId, { name })).id;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })).newPage();
  problems = await pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
});

describe('archived items', () => {
  it('are listed by kind from Plan & billing, with what restoring does', async () => {
    await page.goto(url('/sign-in?next=%2Faccount%2Fbilling'));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => heading().textContent()).toBe('Plan & billing');
    await settled(page);
    await page.getByRole('link', { name: 'Archived items' }).click();
    await page.waitForURL(url('/account/billing/archived'));
    await poll(() => heading().textContent()).toBe('Archived items');
    await poll(() => listed('Services')).toHaveLength(2);
    expect((await listed('Services')).map((t) => t.split(' in ')[0]).sort()).toEqual(['legacy-cron', 'old-report']);
    expect(await listed('Services')).toContainEqual(expect.stringMatching(/in Shop · archived /));
    expect((await listed('Servers')).map((t) => t.split(' in ')[0])).toEqual(['db-1']);
    expect(await page.locator('.page > p').first().textContent()).toContain(
      "if the selection would go over your plan's limits, nothing of it is restored",
    );
    expect(await page.getByRole('button', { name: 'Restore selected' }).isDisabled()).toBe(true);
    await checkScreen('archived items');
  });

  it("refuses a restore over the plan's limit with the API's words, restoring nothing of the selection", async () => {
    await page.getByRole('checkbox', { name: /^legacy-cron/ }).check();
    await page.getByRole('checkbox', { name: /^db-1/ }).check();
    await page.getByRole('button', { name: 'Restore 2 selected' }).click();
    await poll(() => page.getByRole('alert').textContent()).toBe(
      "Service limit reached for your 'Free' plan (max 5 per project including add-ons). Please upgrade or archive services.",
    );
    await checkScreen('archived items, restore refused');
    expect(await listed('Services')).toHaveLength(2);
    expect(await listed('Servers')).toHaveLength(1);
    expect(
      (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })).body,
    ).toEqual([]);
  });

  it('restores what fits: the server alone, then a service once a slot is free; each leaves the list and is back in the catalog', async () => {
    await page.getByRole('checkbox', { name: /^legacy-cron/ }).uncheck();
    await page.getByRole('button', { name: 'Restore 1 selected' }).click();
    await poll(() => page.getByRole('status').textContent()).toBe('Restored 1 server.');
    await poll(() => page.locator('fieldset.archive-kind legend').allTextContents()).toEqual(['Services']);
    expect(
      (
        await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })
      ).body.map((f: { hostname: string }) => f.hostname),
    ).toEqual(['db-1']);

    expect((await api.delete(`/services/${ids.mailer}`, undefined, { token: owner.token })).status).toBe(204);
    await page.getByRole('checkbox', { name: /^legacy-cron/ }).check();
    await page.getByRole('button', { name: 'Restore 1 selected' }).click();
    await poll(() => page.getByRole('status').textContent()).toBe('Restored 1 service.');
    await poll(() => listed('Services')).toHaveLength(1);
    await checkScreen('archived items, after a restore');
    const services = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token: owner.token });
    expect(services.body.map((s: { name: string }) => s.name)).toContain('legacy-cron');
    expect(services.body).toHaveLength(5);
  });

  it('is linked from the archive screen too, and says so when nothing is archived', async () => {
    await page.goto(url('/account/billing/archive'));
    await poll(() => heading().textContent()).toBe('Choose what to archive');
    await settled(page);
    await page.getByRole('link', { name: 'See and restore archived items' }).click();
    await poll(() => heading().textContent()).toBe('Archived items');
    expect((await api.delete(`/services/${ids.search}`, undefined, { token: owner.token })).status).toBe(204);
    await poll(() => listed('Services')).toHaveLength(1);
    await page.getByRole('checkbox', { name: /^old-report/ }).check();
    await page.getByRole('button', { name: 'Restore 1 selected' }).click();
    await poll(() => page.getByText('Nothing is archived.').count()).toBe(1);
    await checkScreen('archived items, none');
  });

  it('ran without a CSP violation, a console error or an uncaught exception (but the refusal it provoked)', () => {
    expect(problems.filter((p) => !/status of 403/.test(p))).toEqual([]);
  });
});
