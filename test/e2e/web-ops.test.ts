import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { createService } from '../helpers/catalog.ts';
import { keepScreenshot, launchChromium, pageProblems, settled } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/**
 * The ops screens in a real browser against a local stack (S3 through s3rver, the outbox read
 * every 200 ms as `npm start` reads it, webhooks allowed to a receiver on 127.0.0.1): plan & billing
 * (limits, a paid plan bought through the local checkout, its invoice), import & export (a document
 * planned as a diff with its problems, applied with live progress over the WebSocket, exported and
 * downloaded), webhooks (registered with the secret shown once, a delivery caused, redelivered,
 * tested) and the downgrade preflight and archive flow. Every screen passes axe at 1280 and 390 px.
 * The tests share one page and build on each other, in order.
 */
// A browser walk of jobs, checkouts and deliveries on a shared 2-core machine: more than the default 30 s per step.
vi.setConfig({ testTimeout: 90_000 });
const ref = useTestStack({ WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', LOCAL_OUTBOX_POLL_MS: '200' }, { withS3: true });
const api = client(() => ref.stack.url);
let browser: Browser;
let page: Page;
let problems: string[];
let owner: Awaited<ReturnType<typeof signUp>>;
let projectId: string;
let envId: string;
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
/** expect.poll with room for a loaded machine (its default gives up after 1 s). */
const poll = <T>(fn: () => Promise<T> | T, timeout = 10_000) => expect.poll(fn, { timeout });
const text = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
};

/** Every screen visited, to check again at 390 px. */
const screens: [string, string][] = [];
async function checkScreen(name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  await keepScreenshot(page, `ops-${name}`, overflow > 0);
  const wide =
    overflow > 0
      ? await page.evaluate(
          "[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className).join(' ')",
        )
      : '';
  expect(overflow, `${name} is wider than the window: ${wide}`).toBeLessThanOrEqual(0);
  if (!screens.some(([n]) => n === name)) screens.push([name, page.url()]);
}

/** A webhook receiver: records each request, answers 200. */
const received: { path: string; body: string }[] = [];
let receiver: Server;
let receiverBase: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  owner = await signUp(api);
  ({ projectId, envId } = await projectWithEnv(api, owner.token, 'Ops'));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  problems = await pageProblems(page);
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await keepScreenshot(page, `ops-failed-${ctx.task.name.slice(0, 30)}`, true);
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const DOCUMENT = (services: string[], extra = '') => `apiVersion: infracatalog/v1
kind: Environment
spec:
  service_floors:
    - hostname: app-1.internal
      type: vm
  networks:
    - name: private
      cidr: 10.0.0.0/16
  services:
${services.map((s) => `    - name: ${s}\n      floor: app-1.internal\n      port: 8080`).join('\n')}
${extra}`;

describe('plan & billing', () => {
  it('signs in and shows the Free plan with its limits as usage bars', async () => {
    await page.goto(url('/sign-in?next=%2Faccount%2Fbilling'));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/account/billing'));
    await poll(() => heading().textContent()).toBe('Plan & billing');
    await poll(() => page.locator('.current-plan').textContent()).toContain('Free');
    const services = page.getByRole('meter', { name: 'Services (per project)' });
    expect(await services.evaluate((m) => (m as unknown as { value: number; max: number }).max)).toBe(5);
    expect(await page.locator('.usage').first().textContent()).toContain('0 of 5');
    expect(await page.getByRole('link', { name: 'Plan & billing' }).getAttribute('aria-current')).toBe('page');
    await checkScreen('billing');
  });

  it('buys the Team plan through the local checkout page and comes back to it, with its invoice', async () => {
    await page.getByRole('button', { name: 'Choose Team (monthly)' }).click();
    await page.waitForURL(/\/_local\/pay\/checkout\//);
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('link', { name: 'Back to the app' }).click();
    await page.waitForURL(url('/account/billing?checkout=success'));
    await poll(() => page.getByRole('status').filter({ hasText: 'Payment received' }).count()).toBe(1);
    await poll(() => page.locator('.current-plan').textContent()).toContain('Team');
    await poll(() => page.locator('.usage').first().textContent()).toContain('0 of 100');
    const invoice = page.locator('ul.invoices li').filter({ hasText: '79.00' });
    await poll(() => invoice.count()).toBe(1);
    await invoice.getByRole('button', { name: /^Line items/ }).click();
    await poll(() => invoice.locator('.lines').textContent()).toMatch(/Team/);
    await checkScreen('billing on Team with an invoice');
  });
});

describe('import & export', () => {
  it('reaches the screen from the environment nav', async () => {
    await page.goto(url(`/p/${projectId}/e/${envId}/services`));
    await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Import & export' }).click();
    await poll(() => heading().textContent()).toBe('Import & export');
    await poll(() => page.getByText('No export or import of this environment yet.').count()).toBe(1);
    await checkScreen('import & export');
  });

  it('plans a document with problems: nothing can be applied, each problem with its line', async () => {
    const bad = DOCUMENT(['api'], '  service_links:\n    - from: api\n      to: nowhere\n');
    await page
      .getByLabel('Configuration document (YAML or JSON)')
      .setInputFiles({ name: 'bad.yaml', mimeType: 'application/yaml', buffer: Buffer.from(bad) });
    await page.getByRole('button', { name: 'Plan import' }).click();
    const problemList = page.locator('ul.problems li');
    await poll(() => problemList.count(), 20_000).toBe(1);
    expect(await problemList.textContent()).toMatch(/^Line 1[0-9] .*Unknown service 'nowhere'/);
    expect(await page.getByRole('button', { name: 'Apply import' }).count()).toBe(0);
    await checkScreen('import plan with problems');
  });

  it('plans a document as a diff, applies it with live progress over the WebSocket, and the services exist', async () => {
    const frames: string[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().includes('/ws/progress')) ws.on('framereceived', (f) => frames.push(String(f.payload)));
    });
    // The document goes once to its presigned URL (the storage's host, not the API's), then is planned and applied from there.
    const puts: string[] = [];
    page.on('request', (r) => r.method() === 'PUT' && puts.push(new URL(r.url()).origin));
    const names = ['api', 'billing', 'cart', 'search', 'mail', 'web'];
    await page
      .getByLabel('Configuration document (YAML or JSON)')
      .setInputFiles({ name: 'shop.yaml', mimeType: 'application/yaml', buffer: Buffer.from(DOCUMENT(names)) });
    await page.getByRole('button', { name: 'Plan import' }).click();
    await poll(() => page.getByRole('heading', { name: 'Plan of shop.yaml' }).count(), 20_000).toBe(1);
    expect(await page.locator('.diff-summary').textContent()).toBe('+ 8 created~ 0 updated= 0 unchanged! 0 refused');
    const rows = await page
      .locator('table.diff-kinds tbody tr')
      .allInnerTexts()
      .then((rows) => rows.map((r) => r.replace(/\s+/g, ' ').trim()));
    expect(rows).toEqual(['Servers 1 0 0 0', 'Networks 1 0 0 0', 'Services 6 0 0 0']);
    const created = (await page.locator('ul.diff-items li.diff-create').allInnerTexts()).map((t) =>
      t.replace(/\s+/g, ' '),
    );
    expect(created).toContain('+ created: cart');
    await checkScreen('import plan');

    await page.getByRole('button', { name: 'Apply import' }).click();
    await poll(() => page.getByRole('heading', { name: 'Import finished' }).count(), 30_000).toBe(1);
    expect(puts).toHaveLength(1);
    expect(puts[0]).not.toBe(new URL(page.url()).origin);
    expect(await page.locator('.diff-summary').textContent()).toBe('+ 8 created~ 0 updated= 0 unchanged! 0 refused');
    // The progress came live: the socket carried the job to its end.
    expect(
      frames
        .map((f) => JSON.parse(f) as { type: string; status: string })
        .some((m) => m.type === 'import.progress' && m.status === 'succeeded'),
    ).toBe(true);
    await checkScreen('import finished');

    await page.getByRole('link', { name: 'See the services' }).click();
    await poll(() => page.locator('table.grid tbody th').allTextContents()).toEqual([...names].sort());
  });

  it("plans a document over 5 MB (a request's limit) through the upload URL", async () => {
    await page.getByRole('link', { name: 'Import & export' }).click();
    await poll(() => heading().textContent()).toBe('Import & export');
    // 6 MB of comment around one service: big for a request, quick to plan.
    const big = `# ${'padding '.repeat(750_000)}\n${DOCUMENT(['api'])}`;
    await page
      .getByLabel('Configuration document (YAML or JSON)')
      .setInputFiles({ name: 'big.yaml', mimeType: 'application/yaml', buffer: Buffer.from(big) });
    await page.getByRole('button', { name: 'Plan import' }).click();
    await poll(() => page.getByRole('heading', { name: 'Plan of big.yaml' }).count(), 30_000).toBe(1);
    expect(await page.locator('.diff-summary').textContent()).toBe('+ 0 created~ 0 updated= 3 unchanged! 0 refused');
  });

  it('exports the environment and downloads its document; the history lists every job', async () => {
    await page.getByRole('link', { name: 'Import & export' }).click();
    await poll(() => heading().textContent()).toBe('Import & export');
    await page.getByRole('button', { name: 'Export environment' }).click();
    const link = page.getByRole('link', { name: 'Download document' });
    await poll(() => link.count(), 20_000).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/\.yaml$/);
    const yaml = await text(await download.createReadStream());
    expect(yaml).toContain('kind: Environment');
    expect(yaml).toMatch(/name: search/);
    const history = page.locator('table.history tbody tr');
    await poll(() => history.count()).toBe(5);
    expect(await history.locator('th').allTextContents()).toEqual([
      'Export',
      'Import plan',
      'Import',
      'Import plan',
      'Import plan',
    ]);
    await checkScreen('import & export with history');

    await page
      .getByRole('link', { name: /^Details of the import of/ })
      .nth(1)
      .click();
    // The address changes with the click's navigation, reported to the test a moment later: wait for it.
    await poll(() => page.url()).toMatch(/transfer\?job=[\w-]+$/);
    await poll(() => page.getByRole('heading', { name: /^Import of shop\.yaml/ }).count()).toBe(1);
  });
});

describe('webhooks', () => {
  let secret: string;

  it('refuses a URL the service will not deliver to, next to the field', async () => {
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Webhooks' }).click();
    await poll(() => heading().textContent()).toBe('Webhooks');
    await page.getByLabel('Payload URL').fill('http://10.1.2.3/hook');
    await page.getByRole('button', { name: 'Register webhook' }).click();
    await poll(() => page.locator('#f-url-error').count()).toBe(1);
    expect(await page.getByLabel('Payload URL').getAttribute('aria-invalid')).toBe('true');
    await checkScreen('webhooks with a refused URL');
  });

  it('registers a webhook and shows its secret once', async () => {
    await page.getByLabel('Payload URL').fill(`${receiverBase}/hook`);
    await page.getByLabel('Description').fill('Receiver of the test');
    await page.getByRole('button', { name: 'Register webhook' }).click();
    const shown = page.getByLabel(/^Secret of /);
    await poll(() => shown.count()).toBe(1);
    secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await poll(() => page.locator('ul.webhooks li').count()).toBe(1);
    await checkScreen('webhooks with the secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await shown.count()).toBe(0);
    await page.getByRole('link', { name: `${receiverBase}/hook` }).click();
    await poll(() => heading().textContent()).toContain(`${receiverBase}/hook`);
    expect(await page.content()).not.toContain(secret);
  });

  it('shows the delivery of an event in the log with its attempt, redelivers it, and sends a test event', async () => {
    await createService(api, owner.token, projectId, envId, { name: 'hooked' });
    const delivery = page.locator('ul.deliveries > li');
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return delivery.filter({ hasText: 'succeeded' }).count();
    }, 20_000).toBe(1);
    expect(await delivery.locator('code').textContent()).toBe('service.created');
    expect(received.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body).data.name)).toEqual(['hooked']);
    await delivery.getByRole('button', { name: /^Show attempts/ }).click();
    await poll(() => delivery.locator('ol.attempts li').allInnerTexts()).toEqual([
      expect.stringMatching(/^HTTP 200 · event · .* ms\nthanks$/),
    ]);
    await checkScreen('webhook with its deliveries');

    await delivery.getByRole('button', { name: /^Redeliver/ }).click();
    await poll(() => delivery.locator('ol.attempts li').count()).toBe(2);
    expect(await delivery.locator('ol.attempts li').nth(1).textContent()).toMatch(/^HTTP 200 · redeliver/);
    expect(received.filter((r) => r.path === '/hook')).toHaveLength(2);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Test event delivered: HTTP 200' }).count()).toBe(1);
    expect(received.filter((r) => r.path === '/hook')).toHaveLength(3);
  });

  it('disables, enables and edits the webhook', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await poll(() => page.locator('.page .badge').first().textContent()).toBe('disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await poll(() => page.locator('.page .badge').first().textContent()).toBe('enabled');
    await page.getByRole('checkbox', { name: /service\.deleted/ }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.getByText('Saved.').count()).toBe(1);
    const read = await api.get(`/projects/${projectId}/webhooks`, { token: owner.token });
    expect(read.body[0].events).toEqual(['service.created', 'service.deleted']);
  });
});

describe('downgrade', () => {
  it('shows what exceeds the Free plan before a downgrade, and archives what the user chooses', async () => {
    await page.getByRole('link', { name: 'Plan & billing' }).click();
    await poll(() => heading().textContent()).toBe('Plan & billing');
    await settled(page);
    await page.getByRole('button', { name: 'Downgrade to Free' }).click();
    await page.waitForURL(/\/account\/billing\/downgrade\?to=/);
    await poll(() => page.getByRole('heading', { name: 'From Team to Free' }).count()).toBe(1);
    // Seven services (six imported, one made for the webhook) on a plan of five.
    expect(await page.locator('.page .alert').textContent()).toMatch(/over Free's limits: 2 services/);
    expect(await page.locator('table.preflight tbody tr').first().textContent()).toContain('7 / 5 (2 over)');
    await checkScreen('downgrade preflight');
  });
});

describe('every ops screen, 390 px wide', () => {
  it('fits and passes axe', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const [name, at] of [...screens]) {
      await page.goto(at);
      await poll(() => heading().count()).toBe(1);
      await page.waitForLoadState('networkidle');
      await checkScreen(`${name}, narrow`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('downgrade, confirmed', () => {
  it('moves to Free, then archives the services the user chooses to get under its limits', async () => {
    await poll(() => page.getByRole('heading', { name: 'From Team to Free' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Downgrade to Free' }).click();
    await page.getByRole('button', { name: 'Yes, downgrade to free' }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'You are on Free now.' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Choose what to archive' }).click();
    await poll(() => heading().textContent()).toBe('Choose what to archive');
    const checked = page.locator('fieldset.archive-kind input:checked');
    await poll(() => checked.count()).toBe(2);
    await checkScreen('archive');
    await page.setViewportSize({ width: 390, height: 800 });
    await checkScreen('archive, narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Archive 2 selected' }).click();
    await page.getByRole('button', { name: 'Yes, archive 2 selected' }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Archived 2 services.' }).count()).toBe(1);
    await poll(() => page.getByText("Nothing is over your plan's limits").count()).toBe(1);
    // The archived summary is its own load beside the candidates': wait for it rather than read it once.
    await poll(() => page.locator('.page ul.plain li').allTextContents()).toEqual(['2 services']);
    const services = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token: owner.token });
    expect(services.body).toHaveLength(5);
  });

  it('ran without a CSP violation, a console error or an uncaught exception (but the refusals it provoked)', () => {
    expect(problems.filter((p) => !/status of (400|422)/.test(p))).toEqual([]);
  });
});
