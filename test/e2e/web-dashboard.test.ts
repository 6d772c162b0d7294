import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { keepScreenshot, launchChromium, pageProblems } from '../helpers/browser.ts';
import { enrolAuthenticator, frozenClock, totpCode } from '../helpers/sign-in.ts';
import { axeViolations } from '../helpers/axe.ts';
import { setPlan } from '../helpers/plans.ts';
import { appContext } from '#shared/context';
import { applyImport, environmentDocument, IMPEX_API_VERSION, planImport } from '#domain/impex';

/**
 * The dashboard in a real browser against a local stack, walked as a newcomer walks it:
 * register, create a project, an environment, services (the API's 422 shown next to its field) and
 * connections, find them in the table, sign in again with an authenticator code. Every screen is
 * checked with axe-core (no serious or critical violation), at 1280 and at 390 px wide, and every page
 * runs under the served CSP without a violation, a console error or an uncaught exception.
 * The tests share one browser page and build on each other, in order.
 */
// Each step drives a real browser; under load a step takes well over the default 30 s.
vi.setConfig({ testTimeout: 90_000 });
const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);
const email = uniqueEmail('web');
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const streamBytes = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
};
const streamText = async (stream: NodeJS.ReadableStream) => (await streamBytes(stream)).toString('utf8');

/** No serious or critical axe violation, and nothing wider than the window. */
async function checkScreen(name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow, `${name} is wider than the window`).toBeLessThanOrEqual(0);
}

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  problems = await pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
});

describe('the dashboard, before sign-in', () => {
  it('opens on the sign-in screen: labelled fields, a Sign in button, at most 200 KB of JavaScript gzipped', async () => {
    const scripts = new Map<string, number>();
    const seen = (res: import('playwright-core').Response) => {
      if (/\.m?js(\?|$)/.test(res.url())) void res.body().then((b) => scripts.set(res.url(), gzipSync(b).length));
    };
    page.on('response', seen);
    await page.goto(url('/'));
    await page.waitForURL(url('/sign-in'));
    await expect.poll(() => heading().textContent()).toBe('Sign in');
    await expect.poll(() => page.getByLabel('Email').count()).toBe(1);
    expect(await page.getByLabel('Password').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await page.waitForLoadState('networkidle');
    page.off('response', seen);
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    expect(scripts.size).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(200 * 1024);
    expect([...scripts.keys()].every((u) => u.startsWith(url('/assets/')))).toBe(true);
    // What a search engine shows under the page's title (Lighthouse's SEO audit).
    expect(await page.locator('meta[name="description"]').getAttribute('content')).toMatch(
      /^Infrastructure Catalog: .{40,140}\.$/,
    );
    await checkScreen('sign-in');
  });

  it('says what is wrong with a refused sign-in, and offers registration', async () => {
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid credentials');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(url('/register'));
    await checkScreen('register');
  });
});

describe('the dashboard, signed in', () => {
  it('registers an account and lands on its (empty) projects', async () => {
    await page.getByLabel('Name').fill('Wendy Web');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(url('/p'));
    await expect.poll(() => heading().textContent()).toBe('Projects');
    await expect.poll(() => page.getByText('No project yet').count()).toBe(1);
    await checkScreen('projects');
  });

  it('creates a project and an environment, and opens its (empty) services', async () => {
    await page.getByLabel('Project name').fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => heading().textContent()).toBe('Environments of Shop');
    await checkScreen('environments');
    await page.getByLabel('Environment name').fill('production');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.waitForURL(/\/p\/[\w-]+\/e\/[\w-]+\/services$/);
    await expect.poll(() => page.getByText('No services here yet.').count()).toBe(1);
    await checkScreen('services (empty)');
  });

  it("creates services with the form, showing the API's 422 next to the field it names", async () => {
    await page.getByRole('link', { name: 'New service' }).click();
    await expect.poll(() => heading().textContent()).toBe('New service');
    await page.getByLabel('Name').fill('db');
    await page.getByLabel('Repository URL').fill('ftp://example.com/db.git');
    await page.getByRole('button', { name: 'Create service' }).click();
    const error = page.locator('#f-repository_url-error');
    await expect.poll(() => error.textContent()).toMatch(/https:\/\/|git:\/\//);
    expect(await page.getByLabel('Repository URL').getAttribute('aria-invalid')).toBe('true');
    await checkScreen('service form with an error');
    await page.getByLabel('Repository URL').fill('https://example.com/db.git');
    await page.getByLabel('Port').fill('5432');
    await page.getByRole('button', { name: 'Create service' }).click();
    await expect.poll(() => heading().textContent()).toBe('db');
    await checkScreen('service detail');
    for (const name of ['api', 'web']) {
      await page.goto(page.url().replace(/services\/[\w-]+$/, 'services/new'));
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create service' }).click();
      await expect.poll(() => heading().textContent()).toBe(name);
    }
  });

  it('connects services from their detail pages (web → api → db)', async () => {
    await page.getByLabel('Connect to').selectOption({ label: 'api (service)' });
    await page.getByLabel('Direction').selectOption('a_to_b');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('.connections li').count()).toBe(1);
    await page.getByRole('link', { name: 'api', exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe('api');
    await expect.poll(() => page.locator('.connections li').textContent()).toContain('web');
    await page.getByLabel('Connect to').selectOption({ label: 'db (service)' });
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('.connections li').count()).toBe(2);
    await checkScreen('service detail with connections');
  });

  it('lists, filters and sorts the services; the filter is in the address and the back button returns', async () => {
    await page.getByRole('link', { name: 'Services' }).click();
    const names = () => page.locator('table.grid tbody th').allTextContents();
    await expect.poll(names).toEqual(['api', 'db', 'web']);
    await page.getByRole('button', { name: /^Name/ }).click();
    await expect.poll(names).toEqual(['web', 'db', 'api']);
    expect(page.url()).toContain('sort=-name');
    await page.getByLabel('Name contains').fill('b');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(names).toEqual(['web', 'db']);
    expect(page.url()).toContain('name=b');
    await page.goBack();
    await expect.poll(names).toEqual(['web', 'db', 'api']);
    await checkScreen('services');
  });

  it("draws the topology (layout in a worker) from one request, highlights a service's blast radius by distance with its paths, and exports SVG and PNG", async () => {
    // The screen reads its graph in one request, not the lists of services, servers, networks, connections, links and attachments.
    const reads: string[] = [];
    const recordRead = (r: { url(): string }) => {
      const { pathname, search } = new URL(r.url());
      if (
        /^\/(topology|services|service-floors|networks|service-connections|service-links|attachments)\b/.test(pathname)
      )
        reads.push(pathname + search);
    };
    page.on('request', recordRead);
    await page.getByRole('link', { name: 'Topology' }).click();
    await expect.poll(() => heading().textContent()).toBe('Topology');
    const canvas = page.locator('.cy');
    await expect.poll(() => canvas.getAttribute('data-drawn'), { timeout: 20_000 }).toBe('true');
    page.off('request', recordRead);
    const [, projectId, envId] = /\/p\/([\w-]+)\/e\/([\w-]+)\/topology/.exec(page.url())!;
    expect(reads).toEqual([`/topology?project_id=${projectId}&environment_id=${envId}`]);
    expect(await canvas.getAttribute('aria-label')).toBe('Topology: 3 services, 0 servers, 0 networks, 2 edges');
    expect(await page.locator('.cy canvas').count()).toBeGreaterThan(0);
    // The figures are written at the drawing's first frame, which may come after `data-drawn`.
    await expect
      .poll(() => page.evaluate('window.__topology'))
      .toMatchObject({
        nodes: 3,
        edges: 2,
        engine: 'elk',
      });
    await checkScreen('topology');

    await page.getByLabel('Blast radius of').selectOption({ label: 'db' });
    await expect.poll(() => page.url()).toMatch(/topology\?focus=[\w-]+$/);
    const affected = page.locator('.blast [data-affected]');
    await expect.poll(() => affected.allTextContents()).toEqual(['api via db → api', 'web via db → api → web']);
    expect(await page.locator('.blast ol.distances > li > strong').allTextContents()).toEqual([
      'Distance 1',
      'Distance 2',
    ]);
    await checkScreen('topology with a blast radius');

    await page.getByLabel('Find').fill('we');
    await expect.poll(() => page.getByText('1 found').count()).toBe(1);

    const [svg] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export SVG' }).click(),
    ]);
    expect(svg.suggestedFilename()).toBe('topology.svg');
    const svgText = await streamText(await svg.createReadStream());
    expect(svgText).toMatch(/<svg[\s\S]*>db<\/text>/);
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export PNG' }).click(),
    ]);
    expect(png.suggestedFilename()).toBe('topology.png');
    expect((await streamBytes(await png.createReadStream())).subarray(1, 4).toString('latin1')).toBe('PNG');

    // A deep link opens the same view: the chosen service and its blast radius.
    await page.reload();
    await expect.poll(() => affected.count(), { timeout: 20_000 }).toBe(2);

    // The fast drawing (WebGL; the automatic choice for big environments) shows the same view, and
    // its pictures come from a detailed drawing made for the export.
    // The blast radius stays through the redraw, read once (no flicker while it is read again).
    const blastReads: string[] = [];
    const countBlastReads = (r: { url(): string }) => r.url().includes('/blast-radius') && blastReads.push(r.url());
    page.on('request', countBlastReads);
    await page.getByLabel('Drawing').selectOption({ label: 'Fast (WebGL)' });
    await expect.poll(() => canvas.getAttribute('data-drawing'), { timeout: 20_000 }).toBe('fast');
    expect(await page.locator('.cy canvas').count()).toBeGreaterThan(0);
    expect(await affected.allTextContents()).toEqual(['api via db → api', 'web via db → api → web']);
    page.off('request', countBlastReads);
    expect(blastReads).toEqual([]);
    await checkScreen('topology, fast drawing');
    await keepScreenshot(page, 'topology-fast');
    const [fastSvg] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export SVG' }).click(),
    ]);
    expect(await streamText(await fastSvg.createReadStream())).toMatch(/<svg[\s\S]*>web<\/text>/);
    expect(await page.locator('.cy-offscreen').count()).toBe(0);
    await page.getByLabel('Drawing').selectOption({ label: 'Detailed' });
    await expect.poll(() => canvas.getAttribute('data-drawing')).toBe('detailed');
  });

  it('opens the topology of 60 services at a size its labels can be read (part of it; Fit shows all)', async () => {
    const back = page.url();
    const login = await api.post('/auth/login', { email, password: PASSWORD });
    const token = login.body.access_token as string;
    await setPlan((await api.get('/auth/me', { token })).body.id, 'Team');
    const [, projectId] = /\/p\/([\w-]+)\//.exec(page.url())!;
    const env = await api.post('/environments', { name: 'sixty', project_id: projectId }, { token });
    expect(env.status, env.text).toBe(201);
    const name = (i: number) => `service-${String(i).padStart(2, '0')}`;
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: {
        service_floors: [
          { hostname: 'vm-1.internal', type: 'vm' },
          { hostname: 'vm-2.internal', type: 'vm' },
        ],
        services: Array.from({ length: 60 }, (_, i) => ({
          name: name(i),
          floor: i % 4 ? null : `vm-${1 + (i % 2)}.internal`,
        })),
        // A layered estate: each service calls one or two of the next few.
        connections: Array.from({ length: 59 }, (_, i) => [
          [i, i + 1],
          [i, Math.min(59, i + 3)],
        ])
          .flat()
          .filter(([a, b], k) => a !== b && (k % 2 === 0 || a % 3 === 0))
          .map(([a, b]) => ({ a: { service: name(a) }, b: { service: name(b) }, direction: 'a_to_b' })),
      },
    });
    const ctx = appContext();
    expect(
      (await applyImport(await planImport({ projectId, environmentId: env.body.id, document }, ctx), ctx)).errors,
    ).toEqual([]);

    await page.goto(url(`/p/${projectId}/e/${env.body.id}/topology`));
    const canvas = page.locator('.cy');
    await expect.poll(() => canvas.getAttribute('data-drawn'), { timeout: 30_000 }).toBe('true');
    expect(await canvas.getAttribute('aria-label')).toMatch(/^Topology: 60 services, 2 servers/);
    // The labels as drawn on the screen: at least 10 px; the legend says only part is in view.
    expect(Number(await canvas.getAttribute('data-label-px'))).toBeGreaterThanOrEqual(10);
    await expect.poll(() => page.locator('.legend').textContent()).toContain('Fit shows all of it');
    await keepScreenshot(page, 'topology-60');
    // Fit shows the whole drawing, smaller.
    await page.getByRole('button', { name: 'Fit' }).click();
    await expect.poll(async () => Number(await canvas.getAttribute('data-label-px'))).toBeLessThan(10);
    await keepScreenshot(page, 'topology-60-fit');
    await checkScreen('topology of 60 services');
    await page.goto(back);
  });

  it('keeps the session across a reload (refresh cookie), and holds no token in storage', async () => {
    await page.getByRole('link', { name: 'Services' }).click();
    await expect.poll(() => page.locator('table.grid tbody th').count()).toBe(3);
    await page.reload();
    await expect.poll(() => page.locator('table.grid tbody th').count()).toBe(3);
    const stored = await page.evaluate(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
    );
    expect(stored).not.toMatch(/eyJ/); // no JWT anywhere a script can read
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'refresh_token')?.httpOnly).toBe(true);
  });

  it('signs out, then signs in again with an authenticator code when the API asks for one', async () => {
    const login = await api.post('/auth/login', { email, password: PASSWORD });
    const secret = await enrolAuthenticator(api, login.body.access_token, clock.now());
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/sign-in'));
    await page.goto(url('/p')); // a deep link while signed out
    await page.waitForURL(url('/sign-in?next=%2Fp'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authenticator or recovery code');
    await expect.poll(() => code.count()).toBe(1);
    await checkScreen('second factor');
    clock.advance(30_000);
    await code.fill(await totpCode(secret, clock.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(url('/p'));
    await expect.poll(() => page.getByRole('link', { name: 'Shop' }).count()).toBe(1);
  });

  it('is usable 390 px wide: every screen fits and passes axe; the header folds into a Menu button', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await checkScreen('projects, narrow');
    await page.getByRole('link', { name: 'Shop' }).click();
    await expect.poll(() => heading().textContent()).toBe('Environments of Shop');
    await checkScreen('environments, narrow');
    await page.getByRole('link', { name: 'production', exact: true }).click();
    await expect.poll(() => page.locator('table.grid tbody th').count()).toBe(3);
    await checkScreen('services, narrow');

    // The header (project, environment and 12 links) took a third of the screen. Folded, it
    // is two short rows: the brand and a Menu button, then the search box, which stays in reach;
    // the screen's heading is in the first screenful's top fifth.
    const menu = page.getByRole('button', { name: 'Menu' });
    const header = page.locator('header.top');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('link', { name: 'Topology' }).isVisible()).toBe(false);
    expect(await page.getByLabel('Environment', { exact: true }).isVisible()).toBe(false);
    expect(await page.getByRole('combobox', { name: /search/i }).isVisible()).toBe(true);
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(100);
    expect((await heading().boundingBox())!.y).toBeLessThan(800 / 5);
    await keepScreenshot(page, 'header-narrow');
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    for (const link of [
      'Members',
      'Roles',
      'Audit log',
      'Webhooks',
      'Services',
      'Topology',
      'Servers',
      'Networks',
      'Import & export',
      'Account',
      'Security log',
      'Plan & billing',
    ]) {
      expect(await page.getByRole('link', { name: link, exact: true }).isVisible(), link).toBe(true);
    }
    expect(await page.getByLabel('Environment', { exact: true }).isVisible()).toBe(true);
    await keepScreenshot(page, 'header-narrow-open');
    await checkScreen('header menu open, narrow');
    // Choosing a screen folds it again.
    await page.getByRole('link', { name: 'Servers', exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe('Servers');
    // Folded by an effect of the new address, which runs after the new screen is painted.
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await page.goBack();
    await expect.poll(() => page.locator('table.grid tbody th').count()).toBe(3);

    await page.getByRole('link', { name: 'api', exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe('api');
    await checkScreen('service detail, narrow');
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect.poll(() => page.getByLabel('Name').inputValue()).toBe('api');
    await checkScreen('service form, narrow');
    await menu.click();
    await page.getByRole('link', { name: 'Topology' }).click();
    await expect.poll(() => page.locator('.cy').getAttribute('data-drawn'), { timeout: 20_000 }).toBe('true');
    await checkScreen('topology, narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await menu.isVisible()).toBe(false);
    expect(await page.getByRole('link', { name: 'Topology' }).isVisible()).toBe(true);
  });

  it('ran every page without a CSP violation, a console error or an uncaught exception (but the refusals it provoked)', () => {
    // The browser logs every 4xx as a console error: the refused sign-in (401), the second factor asked (401), the 422 shown in the form.
    expect(problems.filter((p) => !/status of (401|422)/.test(p))).toEqual([]);
  });
});
