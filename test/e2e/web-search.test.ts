import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { keepScreenshot, registerInBrowser, useChromiumPage, settled } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * The header's search box in a real browser against a local stack: `/` focuses it, results come
 * grouped by kind, the arrow keys and Enter open one; a service is found by its name, by a custom
 * field's value (under the field's label as it is now, opened from its result), and by an address of
 * its server (the server's result, then the service on its page). Checked with axe-core (no serious or
 * critical violation) at 1280 and 390 px. SCREENSHOTS=<folder> keeps a picture
 * of the open results at each width.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const email = uniqueEmail('search');
let page: Page;
let problems: string[];
const ids = { projectId: '', envId: '', service: '', floor: '', token: '' };
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
const box = () => page.getByRole('combobox', { name: 'Search the project' });
const options = () => page.getByRole('listbox', { name: 'Search results' }).getByRole('option');

async function checkScreen(name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow, `${name} is wider than the window`).toBeLessThanOrEqual(0);
}

useChromiumPage((opened) => ({ page, problems } = opened));

describe('the header search box', { timeout: 120_000 }, () => {
  it('finds a service by its name: / focuses the box, results grouped by kind, Enter opens the first', async () => {
    await registerInBrowser(page, ref.stack.url, { name: 'Sam Search', email });
    const token = (await api.post('/auth/login', { email, password: PASSWORD })).body.access_token as string;
    ids.token = token;
    const project = await api.post('/projects', { name: 'Findings' }, { token });
    ids.projectId = project.body.id;
    const env = await api.post('/environments', { name: 'prod', project_id: ids.projectId }, { token });
    ids.envId = env.body.id;
    const scope = { project_id: ids.projectId, environment_id: ids.envId };
    const field = await api.post(
      `/projects/${ids.projectId}/custom-fields`,
      { key: 'team', label: 'Team', type: 'text', applies_to: ['service'] },
      { token },
    );
    expect(field.status, field.text).toBe(201);
    const floor = await api.post(
      '/service-floors',
      { ...scope, type: 'vm', hostname: 'pay-host-1', ip_address: '10.42.7.19' },
      { token },
    );
    ids.floor = floor.body.id;
    const service = await api.post(
      '/services',
      {
        ...scope,
        name: 'payments-gateway',
        service_floor_id: ids.floor,
        tags: ['billing'],
        custom_fields: { team: 'Ledger Squad' },
      },
      { token },
    );
    expect(service.status, service.text).toBe(201);
    ids.service = service.body.id;
    await api.post('/networks', { ...scope, name: 'payments-net', cidr: '10.42.7.0/24' }, { token });

    await page.goto(url(`/p/${ids.projectId}/e/${ids.envId}/services`));
    await poll(() => heading().textContent()).toContain('Services');
    await page.locator('main').click();
    await page.keyboard.press('/');
    await poll(() => page.evaluate('document.activeElement?.id')).toBe('site-search');
    await page.keyboard.type('payments');
    await poll(() => options().count()).toBe(2);
    expect(await page.getByRole('group', { name: 'Services' }).getByRole('option').textContent()).toContain(
      'payments-gateway',
    );
    expect(await page.getByRole('group', { name: 'Networks' }).getByRole('option').textContent()).toContain(
      'payments-net',
    );
    expect(await box().getAttribute('aria-expanded')).toBe('true');
    await checkScreen('search results (1280 px)');
    await keepScreenshot(page, 'search-1280');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForURL(url(`/p/${ids.projectId}/e/${ids.envId}/services/${ids.service}`));
    await poll(() => heading().textContent()).toBe('payments-gateway');
  });

  it('finds the service by a custom field value and opens it from its result', async () => {
    await page.goto(url(`/p/${ids.projectId}/e/${ids.envId}/networks`));
    await poll(() => heading().textContent()).toBe('Networks');
    await page.locator('main').click();
    await page.keyboard.press('/');
    await poll(() => page.evaluate('document.activeElement?.id')).toBe('site-search');
    await page.keyboard.type('ledger');
    await poll(() => options().count()).toBe(1);
    const found = page.getByRole('group', { name: 'Services' }).getByRole('option');
    expect(await found.textContent()).toContain('payments-gateway');
    expect(await found.textContent()).toContain('Team: Ledger Squad');
    await checkScreen('search results by a custom field (1280 px)');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(url(`/p/${ids.projectId}/e/${ids.envId}/services/${ids.service}`));
    await poll(() => heading().textContent()).toBe('payments-gateway');
    await poll(() => page.locator('dl.facts dt:has-text("Team") + dd').textContent()).toBe('Ledger Squad');

    // The field's label renamed meanwhile: the box's next opening shows the new one.
    const renamed = await api.patch(
      `/projects/${ids.projectId}/custom-fields/team`,
      { label: 'Squad' },
      { token: ids.token },
    );
    expect(renamed.status, renamed.text).toBe(200);
    await page.locator('main').click();
    await page.keyboard.press('/');
    await page.keyboard.type('ledger');
    await poll(() => options().count()).toBe(1);
    expect(await options().textContent()).toContain('Squad: Ledger Squad');
    await page.keyboard.press('Escape');
    await box().fill('');
  });

  it("finds the service by an address of its server at 390 px: Ctrl-K, the server's result, then the service on it", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.keyboard.press('Control+k');
    await poll(() => page.evaluate('document.activeElement?.id')).toBe('site-search');
    await page.keyboard.type('10.42.7.19');
    await poll(() => options().count()).toBe(2); // the server with the address, the network holding it
    const server = page.getByRole('group', { name: 'Servers' }).getByRole('option');
    expect(await server.textContent()).toContain('Address: 10.42.7.19');
    await checkScreen('search results (390 px)');
    await keepScreenshot(page, 'search-390');
    await server.click();
    await page.waitForURL(url(`/p/${ids.projectId}/e/${ids.envId}/servers/${ids.floor}`));
    await poll(() => heading().textContent()).toBe('pay-host-1');
    await settled(page);
    await page.getByRole('main').getByRole('link', { name: 'payments-gateway' }).first().click();
    await page.waitForURL(url(`/p/${ids.projectId}/e/${ids.envId}/services/${ids.service}`));
    await poll(() => heading().textContent()).toBe('payments-gateway');
    expect(problems).toEqual([]);
  });
});
