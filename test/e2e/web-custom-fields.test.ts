import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, uniqueEmail } from '../helpers/http.ts';
import { keepScreenshot, signUpWithProject, useChromiumPage } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * Custom fields in a real browser: a field defined on the project's Custom fields screen, filled in
 * on a new service with the input of its type, shown on the service's page, and the services table
 * filtered by it and showing it as a column; the servers and networks tables likewise; axe-core and
 * no overflow at 1280 and 390 px.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const email = uniqueEmail('fields');
let page: Page;
let problems: string[];
let projectId = '';
let envId = '';
let token = '';
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const rowNames = () => page.locator('table.grid tbody th').allTextContents();
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

async function checkScreen(name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await axeViolations(page), `${name} at ${width}`).toEqual([]);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, `${name} is wider than the window at ${width}`).toBeLessThanOrEqual(0);
    await keepScreenshot(page, `custom-fields-${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

useChromiumPage((opened) => ({ page, problems } = opened));

describe('custom fields in the dashboard', { timeout: 180_000 }, () => {
  it('defines a field, fills it on a new service, and filters the services table by it', async () => {
    ({ projectId, envId, token } = await signUpWithProject(page, api, ref.stack.url, { name: 'Fran Fields', email }));

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Custom fields' }).click();
    await poll(() => heading().textContent()).toBe('Custom fields');
    await page.getByLabel('Label').fill('Tier');
    await page.getByLabel('Key').fill('tier');
    await page.getByLabel('Type').selectOption('select');
    await page.getByLabel('Choices').fill('gold\nsilver');
    await page.getByRole('button', { name: 'Create field' }).click();
    await poll(() => rowNames()).toEqual(['Tier']);
    // A bad key: the API's 422 next to the field.
    await page.getByLabel('Label').fill('Bad');
    await page.getByLabel('Key').fill('Bad Key');
    await page.getByRole('button', { name: 'Create field' }).click();
    await poll(() => page.locator('.field.invalid').count()).toBeGreaterThan(0);
    await checkScreen('definitions');

    await page.goto(url(`/p/${projectId}/e/${envId}/services/new`));
    await poll(() => heading().textContent()).toBe('New service');
    await page.getByLabel('Name', { exact: true }).fill('checkout');
    await page.getByLabel('Tier').selectOption('gold');
    await checkScreen('service form');
    await page.getByRole('button', { name: 'Create service' }).click();
    await poll(() => heading().textContent()).toBe('checkout');
    await poll(() => page.locator('dl.facts dt', { hasText: 'Tier' }).count()).toBe(1);
    expect(await page.locator('dl.facts dt:has-text("Tier") + dd').textContent()).toBe('gold');
    await checkScreen('service page');

    const other = await api.post(
      '/services',
      { name: 'billing', project_id: projectId, environment_id: envId, custom_fields: { tier: 'silver' } },
      { token },
    );
    expect(other.status, other.text).toBe(201);
    await page.goto(url(`/p/${projectId}/e/${envId}/services`));
    await poll(() => rowNames()).toEqual(['billing', 'checkout']);
    await page.getByLabel('Custom fields (key=value, comma-separated)').fill('tier=gold');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(() => rowNames()).toEqual(['checkout']);
    expect(page.url()).toContain('cf=tier%3Dgold');
    await page.getByRole('checkbox', { name: 'Tier' }).check();
    await poll(() => page.locator('table.grid thead th', { hasText: 'Tier' }).count()).toBe(1);
    expect(await page.locator('table.grid tbody td').last().textContent()).toBe('gold');
    await checkScreen('services filtered');
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
  });

  it('filters the servers and networks tables by a field and shows it as a column', async () => {
    const made = await api.post(
      `/projects/${projectId}/custom-fields`,
      { key: 'team', label: 'Team', type: 'text', applies_to: ['service_floor', 'network'] },
      { token },
    );
    expect(made.status, made.text).toBe(201);
    const inEnv = { project_id: projectId, environment_id: envId };
    for (const [hostname, team] of [
      ['vm-ops', 'ops'],
      ['vm-web', 'web'],
    ]) {
      const floor = await api.post(
        '/service-floors',
        { ...inEnv, hostname, type: 'vm', custom_fields: { team } },
        { token },
      );
      expect(floor.status, floor.text).toBe(201);
    }
    for (const [name, cidr, team] of [
      ['lan-ops', '10.1.0.0/24', 'ops'],
      ['lan-web', '10.2.0.0/24', 'web'],
    ]) {
      const net = await api.post('/networks', { ...inEnv, name, cidr, custom_fields: { team } }, { token });
      expect(net.status, net.text).toBe(201);
    }
    for (const [screen, all, ops] of [
      ['servers', ['vm-ops', 'vm-web'], 'vm-ops'],
      ['networks', ['lan-ops', 'lan-web'], 'lan-ops'],
    ] as const) {
      await page.goto(url(`/p/${projectId}/e/${envId}/${screen}`));
      await poll(() => rowNames()).toEqual(all);
      expect(await page.locator('table.grid thead th', { hasText: 'Team' }).count()).toBe(0);
      await page.getByRole('checkbox', { name: 'Team' }).check();
      await poll(() => page.locator('table.grid thead th').last().textContent()).toBe('Team');
      expect(await page.locator('table.grid tbody tr td:last-child').allTextContents()).toEqual(['ops', 'web']);
      await page.getByLabel('Custom fields (key=value, comma-separated)').fill('team=ops');
      await page.getByRole('button', { name: 'Filter' }).click();
      await poll(() => rowNames()).toEqual([ops]);
      expect(page.url()).toContain('cf=team%3Dops');
      expect(await page.locator('table.grid tbody tr td:last-child').allTextContents()).toEqual(['ops']);
      await checkScreen(`${screen} filtered`);
    }
    // The definitions' changes are in the audit log, each with its history (the key is its entity).
    await page.goto(url(`/p/${projectId}/audit?entity_type=custom_field`));
    const entries = page.locator('article');
    await poll(() => entries.count()).toBe(2);
    expect(await entries.first().getAttribute('aria-label')).toBe(`${email} created custom field team`);
    await entries.first().getByRole('link', { name: 'History of this custom field' }).click();
    await poll(() => page.url()).toContain('entity_id=team');
    await poll(() => entries.count()).toBe(1);
    expect(await entries.first().getAttribute('aria-label')).toBe(`${email} created custom field team`);
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
  });
});
