import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { keepScreenshot, signUpWithProject, useChromiumPage, settled } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * The catalog's screens in a real browser against a local stack: servers and networks (tables
 * with SPEC's filters in the address, pages, sorting by name; detail pages; create, edit and delete
 * forms showing the API's 422 next to its field), the project's audit log (filters, cursor pages, the
 * changes before and after) and the account's security log. Every screen is checked with axe-core (no
 * serious or critical violation) at 1280 and 390 px, under the served CSP. The tests build on each
 * other, in order, on one page.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const email = uniqueEmail('catalog');
let page: Page;
let problems: string[];
let projectId = '';
let envId = '';
let token = '';
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const rowNames = () => page.locator('table.grid tbody th').allTextContents();
/** Waits for what the user should come to see (the machine may be busy: a generous limit, never a timing assertion). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
const status = () => page.getByRole('status').first().textContent();

/** No serious or critical axe violation, and nothing wider than the window. */
async function checkScreen(name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow, `${name} is wider than the window`).toBeLessThanOrEqual(0);
}

async function seed(path: string, body: Record<string, unknown>) {
  const res = await api.post(path, { project_id: projectId, environment_id: envId, ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

useChromiumPage((opened) => ({ page, problems } = opened));

describe('the catalog screens', { timeout: 120_000 }, () => {
  it('registers, creates a project and an environment, and opens its (empty) servers', async () => {
    ({ projectId, envId, token } = await signUpWithProject(page, api, ref.stack.url, { name: 'Cara Catalog', email }));

    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Servers' }).click();
    await poll(() => heading().textContent()).toBe('Servers');
    await poll(() => page.getByText('No servers here yet.').count()).toBe(1);
    await checkScreen('servers (empty)');
  });

  it("registers a server with the form, the API's 422 shown next to the field it names", async () => {
    await page.getByRole('link', { name: 'New server' }).click();
    await poll(() => heading().textContent()).toBe('New server');
    await page.getByLabel('Type').selectOption('vm');
    await page.getByLabel('Hostname').fill('web-1');
    await page.getByLabel('Provider').selectOption('hetzner');
    await page.getByLabel('Region').fill('fsn1');
    await page.getByLabel('IP address', { exact: true }).fill('not-an-address');
    await page.getByRole('button', { name: 'Create server' }).click();
    await poll(() => page.locator('#f-ip_address-error').count()).toBe(1);
    expect(await page.getByLabel('IP address', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await checkScreen('server form with an error');
    await page.getByLabel('IP address', { exact: true }).fill('10.0.1.10');
    await page.getByLabel('CPUs').fill('2');
    await page.getByRole('button', { name: 'Create server' }).click();
    await poll(() => heading().textContent()).toBe('web-1');
    expect(await page.locator('dl.facts').textContent()).toContain('hetzner / fsn1');
    await checkScreen('server detail');
  });

  it('creates a network: a bad CIDR is refused next to the CIDR field, then it is created', async () => {
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Networks' }).click();
    await poll(() => page.getByText('No networks here yet.').count()).toBe(1);
    await checkScreen('networks (empty)');
    await page.getByRole('link', { name: 'New network' }).click();
    await poll(() => heading().textContent()).toBe('New network');
    await page.getByLabel('Name').fill('backend');
    await page.getByLabel('CIDR').fill('10.0.1.0/33');
    await page.getByRole('button', { name: 'Create network' }).click();
    await poll(() => page.locator('#f-cidr-error').count()).toBe(1);
    expect(await page.getByLabel('CIDR').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-name-error').count()).toBe(0);
    await checkScreen('network form with an error');
    await page.getByLabel('CIDR').fill('10.0.1.0/24');
    await page.getByLabel('Gateway').fill('10.0.1.1');
    await page.getByLabel('VLAN id').fill('12');
    await page.getByRole('button', { name: 'Create network' }).click();
    await poll(() => heading().textContent()).toBe('backend');
    const facts = await page.locator('dl.facts').textContent();
    expect(facts).toContain('10.0.1.0/24');
    expect(facts).toContain('10.0.1.1');
    await poll(() => page.getByText('No server is attached.', { exact: false }).count()).toBe(1);
    await checkScreen('network detail');
  });

  it('attaches the server to the network; the server, the network and a service link to each other', async () => {
    await page.goBack(); // the form
    await page.goBack(); // the networks
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('link', { name: 'web-1' }).click();
    await poll(() => heading().textContent()).toBe('web-1');
    await page.getByRole('checkbox', { name: /backend/ }).check();
    await page.getByRole('button', { name: 'Save networks' }).click();
    await poll(() => page.locator('ul.plain a', { hasText: 'backend' }).count()).toBe(1);
    await checkScreen('server detail with a network');

    const floor = (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token })).body[0];
    const service = await seed('/services', { name: 'shop', service_floor_id: floor.id });

    await page.reload();
    await poll(() => page.locator('h2 + ul.plain a', { hasText: 'shop' }).count()).toBe(1);
    await page.getByRole('link', { name: 'shop' }).click();
    await poll(() => heading().textContent()).toBe('shop');
    // The service's networks, attached from its own page with the server's form.
    await poll(() => page.getByText('Not attached to any network.').count()).toBe(1);
    await page.getByRole('checkbox', { name: /backend/ }).check();
    await page.getByRole('button', { name: 'Save networks' }).click();
    await poll(() => page.locator('ul.plain a', { hasText: 'backend' }).count()).toBe(1);
    expect(
      (await api.get(`/attachments/services/${service.id}/networks`, { token })).body.networks.map(
        (n: { name: string }) => n.name,
      ),
    ).toEqual(['backend']);
    await checkScreen('service detail with a network');
    await page.setViewportSize({ width: 390, height: 800 });
    await checkScreen('service detail with a network, narrow');
    await keepScreenshot(page, 'catalog-service-networks-390');
    await page.setViewportSize({ width: 1280, height: 800 });
    await keepScreenshot(page, 'catalog-service-networks-1280');
    await page.getByRole('link', { name: 'web-1' }).click(); // the service's server
    await poll(() => heading().textContent()).toBe('web-1');
    await page.goBack();
    await poll(() => heading().textContent()).toBe('shop');
    await settled(page);
    await page.getByRole('link', { name: 'backend' }).click(); // the service's network
    await poll(() => heading().textContent()).toBe('backend');
    await poll(() => page.locator('h2:text("Attached servers") + ul').textContent()).toBe('web-1');
    expect(await page.locator('h2:text("Attached services") + ul').textContent()).toBe('shop');
    await checkScreen('network detail with attachments');
  });

  it('pages, sorts and filters the servers; filters, sort and page are in the address and the back button returns', async () => {
    for (let i = 1; i <= 24; i++) {
      await seed('/service-floors', {
        type: i % 3 ? 'vm' : 'container',
        hostname: `node-${String(i).padStart(2, '0')}`,
        provider: 'aws',
        provider_region: i <= 12 ? 'eu-west-1' : 'us-east-1',
        tags: i % 2 ? ['odd'] : [],
      });
    }
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Servers' }).click();
    await poll(status).toBe('25 servers, 1–20 shown');
    expect((await rowNames()).slice(0, 3)).toEqual(['node-01', 'node-02', 'node-03']);
    expect(await page.getByText('Page 1 of 2').count()).toBe(1);
    await checkScreen('servers, page 1');

    await page.getByRole('link', { name: 'Next page' }).click();
    await poll(rowNames).toEqual(['node-21', 'node-22', 'node-23', 'node-24', 'web-1']);
    expect(page.url()).toContain('page=2');
    await page.getByRole('button', { name: /^Hostname/ }).click();
    await poll(() => rowNames().then((n) => n.slice(0, 2))).toEqual(['web-1', 'node-24']);
    expect(page.url()).toContain('sort=-name');
    expect(page.url()).not.toContain('page=');
    await page.goBack();
    await poll(rowNames).toEqual(['node-21', 'node-22', 'node-23', 'node-24', 'web-1']);
    await page.getByRole('link', { name: 'Previous page' }).click();
    await poll(() => rowNames().then((n) => n.length)).toBe(20);

    await page.getByLabel('Type').selectOption('container');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(status).toBe('8 servers');
    expect(page.url()).toContain('type=container');
    await page.getByLabel('Location (provider, region, zone)').fill('us-east-1');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['node-15', 'node-18', 'node-21', 'node-24']);
    await page.getByLabel('Hostname contains').fill('node-2');
    await page.getByLabel('Tags (any of, comma-separated)').fill('odd');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['node-21']);
    await checkScreen('servers, filtered');
    await page.goBack();
    await poll(rowNames).toEqual(['node-15', 'node-18', 'node-21', 'node-24']);
    // A filtered list is a link: opened afresh, it shows the same.
    await page.goto(page.url());
    await poll(rowNames).toEqual(['node-15', 'node-18', 'node-21', 'node-24']);
    expect(await page.getByLabel('Location (provider, region, zone)').inputValue()).toBe('us-east-1');
    await page.getByRole('button', { name: 'Clear' }).click();
    await poll(status).toBe('25 servers, 1–20 shown');
  });

  it('filters the networks by search, range, prefix length and VLAN', async () => {
    await seed('/networks', { name: 'frontend', cidr: '10.0.2.0/24', vlan_id: 20 });
    await seed('/networks', { name: 'old-net', cidr: '192.168.0.0/16', is_private: true });
    await seed('/networks', { name: 'public', cidr: '203.0.113.0/28', is_private: false });
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Networks' }).click();
    await poll(rowNames).toEqual(['backend', 'frontend', 'old-net', 'public']);
    await page.getByLabel('Inside range (CIDR)').fill('10.0.0.0/16');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['backend', 'frontend']);
    expect(page.url()).toContain('range=10.0.0.0%2F16');
    await page.getByLabel('VLAN id').fill('20');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['frontend']);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Prefix length (0–32)').fill('28');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['public']);
    // Typed straight after "Clear", before the next frame: the search is kept, and the cleared filters
    // stay cleared (a draft reset a frame late used to wipe what was typed).
    await page.evaluate(`(async () => {
      const form = document.querySelector('form[role=search]');
      [...form.querySelectorAll('button')].find((b) => b.textContent === 'Clear').click();
      await new Promise((r) => setTimeout(r, 0));
      const search = form.querySelector('input[name=q]');
      search.value = 'old';
      search.dispatchEvent(new Event('input', { bubbles: true }));
    })()`);
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['old-net']);
    expect(await page.getByLabel('Prefix length (0–32)').inputValue()).toBe('');
    await checkScreen('networks, filtered');
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: /^Name/ }).click();
    await poll(rowNames).toEqual(['public', 'old-net', 'frontend', 'backend']);
  });

  it('edits a server and a network (a refused value shown next to its field first)', async () => {
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByLabel('Hostname contains').fill('web');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(rowNames).toEqual(['web-1']);
    await page.getByRole('link', { name: 'web-1' }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    await poll(() => heading().textContent()).toBe('Edit web-1');
    expect(await page.getByLabel('CPUs').inputValue()).toBe('2');
    await page.getByLabel('Hostname').fill('web-01');
    await page.getByLabel('CPUs').fill('lots');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.locator('#f-cpu-error').count()).toBe(1);
    await checkScreen('server edit form with an error');
    await page.getByLabel('CPUs').fill('4');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => heading().textContent()).toBe('web-01');
    expect(await page.locator('dl.facts').textContent()).toMatch(/CPUs4/);

    await page.getByRole('link', { name: 'backend', exact: true }).click();
    await poll(() => heading().textContent()).toBe('backend');
    await settled(page);
    await page.getByRole('link', { name: 'Edit' }).click();
    await poll(() => page.getByLabel('Name').inputValue()).toBe('backend');
    await page.getByLabel('Description').fill('The application tier');
    await page.getByRole('checkbox', { name: 'Private network' }).uncheck();
    await checkScreen('network edit form');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => heading().textContent()).toBe('backend');
    const facts = await page.locator('dl.facts').textContent();
    expect(facts).toContain('The application tier');
    expect(facts).toContain('Privateno');
  });

  it('deletes a network and a server only after confirmation', async () => {
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Networks' }).click();
    await page.getByRole('link', { name: 'old-net' }).click();
    await poll(() => heading().textContent()).toBe('old-net');
    await settled(page);
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('group', { name: /Delete network old-net/ });
    await poll(() => confirm.count()).toBe(1);
    await checkScreen('network delete confirmation');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await heading().textContent()).toBe('old-net');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => heading().textContent()).toBe('Networks');
    await poll(rowNames).toEqual(['backend', 'frontend', 'public']);

    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('link', { name: 'node-01' }).click();
    await poll(() => heading().textContent()).toBe('node-01');
    await settled(page);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => heading().textContent()).toBe('Servers');
    await poll(status).toBe('24 servers, 1–20 shown');
  });

  it('shows the changes in the audit log: who, what, before and after; filtered and paged, in the address', async () => {
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Audit log' }).click();
    await poll(() => heading().textContent()).toBe('Audit log');
    const entries = page.locator('ol.log > li');
    await poll(() => entries.count()).toBe(25);
    expect(await entries.first().textContent()).toContain(`${email} deleted server node-01`);
    await checkScreen('audit log');

    // Older entries are a cursor away; the newest are a link back.
    await page.getByRole('link', { name: 'Older entries' }).click();
    await poll(() => page.url()).toContain('cursor=');
    await poll(() => entries.last().textContent()).toContain('created project Plant'); // the oldest entry
    expect(await page.getByText('No older entries').count()).toBe(1);
    await page.getByRole('link', { name: 'Newest entries' }).click();
    await poll(() => entries.first().textContent()).toContain('deleted server node-01');

    await page.getByLabel('Kind').selectOption('network');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(() => page.url()).toContain('entity_type=network');
    await poll(() =>
      entries.evaluateAll((els) => els.map((e) => e.querySelector('article')!.getAttribute('aria-label'))),
    ).toEqual([
      `${email} deleted network old-net`,
      `${email} changed network backend`,
      `${email} created network public`,
      `${email} created network old-net`,
      `${email} created network frontend`,
      `${email} created network backend`,
    ]);
    const change = entries.filter({ hasText: 'changed network backend' });
    expect((await change.locator('table.changes tbody tr').allTextContents()).sort()).toEqual([
      'description—The application tier',
      'is privatetruefalse',
    ]);

    await page.getByLabel('Action (e.g. floor.update)').fill('network.delete');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(() => entries.count()).toBe(1);
    expect(await entries.locator('table.changes thead').textContent()).toBe('FieldBefore');
    await page.getByRole('button', { name: 'Clear' }).click();

    await page.getByLabel('Who').selectOption({ label: email });
    await page.getByLabel('From').fill('2999-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await poll(() => page.url()).toContain('since=2999-01-01T00%3A00%3A00.000Z');
    await poll(() => page.getByText('No entries match.').count()).toBe(1);
    await checkScreen('audit log, nothing matches');
    await page.goBack(); // cleared
    await poll(() => entries.count()).toBe(25);
    await page.goBack(); // one action
    await poll(() => entries.count()).toBe(1);
    expect(page.url()).toContain('action=network.delete');
    expect(await page.getByLabel('Action (e.g. floor.update)').inputValue()).toBe('network.delete');
  });

  it("opens a server's history from its page: its creation and its change, before and after", async () => {
    await page.goto(url(`/p/${projectId}/e/${envId}/servers?hostname=web`));
    await page.getByRole('link', { name: 'web-01' }).click();
    await page.getByRole('link', { name: 'History' }).click();
    await poll(() => heading().textContent()).toBe('Audit log');
    expect(page.url()).toContain('entity_id=');
    const entries = page.locator('ol.log > li');
    await poll(() => entries.count()).toBe(3);
    const [changed, attached, created] = await entries.allTextContents();
    expect(changed).toContain('changed server web-01');
    expect(await entries.first().locator('table.changes tbody tr').allTextContents()).toEqual([
      'cpu24',
      'hostnameweb-1web-01',
    ]);
    expect(attached).toContain('network attachment');
    expect(created).toContain('created server web-1');
    await checkScreen('audit log of one server');
  });

  it('shows sign-ins and refusals in the security log, linked from the account area', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/sign-in'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toBe('Invalid credentials');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/p'));
    await page.getByRole('link', { name: 'Security log' }).click();
    await poll(() => heading().textContent()).toBe('Security log');
    const events = page.locator('ol.log > li article');
    await poll(() => events.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
      'Signed in',
      'Sign-in refused',
      'Signed out',
      'Signed in',
      'Signed in',
      'Account created',
    ]);
    expect(await page.locator('ol.log > li').nth(1).textContent()).toContain('wrong e-mail or password');
    expect(await page.locator('ol.log > li').first().textContent()).toContain('127.0.0.1');
    await checkScreen('security log');
  });

  it('is usable 390 px wide: every catalog screen fits and passes axe', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await checkScreen('security log, narrow');
    const screens: [string, string][] = [
      [`/p/${projectId}/e/${envId}/servers`, 'Servers'],
      [`/p/${projectId}/e/${envId}/servers/new`, 'New server'],
      [`/p/${projectId}/e/${envId}/networks`, 'Networks'],
      [`/p/${projectId}/e/${envId}/networks/new`, 'New network'],
      [`/p/${projectId}/audit`, 'Audit log'],
    ];
    for (const [path, title] of screens) {
      await page.goto(url(path));
      await poll(() => heading().textContent()).toBe(title);
      await page.waitForLoadState('networkidle');
      await checkScreen(`${title}, narrow`);
    }
    await page.goto(url(`/p/${projectId}/e/${envId}/servers?hostname=web`));
    await page.getByRole('link', { name: 'web-01' }).click();
    await poll(() => page.getByRole('button', { name: 'Save networks' }).count()).toBe(1);
    await checkScreen('server detail, narrow');
    await page.getByRole('link', { name: 'Edit' }).click();
    await poll(() => page.getByLabel('Hostname').inputValue()).toBe('web-01');
    await checkScreen('server edit, narrow');
    await page.goto(url(`/p/${projectId}/e/${envId}/networks`));
    await page.getByRole('link', { name: 'backend' }).click();
    await poll(() => page.locator('h2:text("Attached servers") + ul').count()).toBe(1);
    await checkScreen('network detail, narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('ran every page without a CSP violation, a console error or an uncaught exception (but the refusals it provoked)', () => {
    // The browser logs every 4xx as a console error: the refused sign-in (401) and the 422s shown in the forms.
    expect(problems.filter((p) => !/status of (401|422)/.test(p))).toEqual([]);
  });
});
