import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startLocalStack } from '../../infra/local/stack.ts';
import { launchChromium } from '../helpers/browser.ts';

/**
 * `npm run docs:screenshot`: proof that GET /docs renders. Starts the local stack
 * (in-memory DynamoDB Local, any free port), opens /docs in Debian's headless Chromium, waits until
 * Redoc lists the operations, and checks that
 *   - the menu lists every operation of the served /openapi.json (each operationId, by count too),
 *   - no request leaves the origin (recorded, then refused) and the page's CSP refuses nothing,
 * then saves docs/api-reference.png. Exits non-zero on any failure. Needs Chromium as the browser tests find it
 * (test/helpers/browser.ts); `test/e2e/docs-page.test.ts` checks the page over HTTP in `npm test`.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, 'docs', 'api-reference.png');

const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-docs-'));
const stack = await startLocalStack({
  inMemory: true,
  withoutS3: true,
  env: {
    STAGE: 'local',
    PORT: '0',
    LOCAL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    LOCAL_OUTBOX_POLL_MS: '0',
    LOCAL_STREAM_POLL_MS: '0',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
  },
});
let browser: Browser | undefined;
const failures: string[] = [];
try {
  const origin = new URL(stack.url).origin;
  type Operations = Record<string, Record<string, { operationId: string }>>;
  const doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as { paths: Operations; webhooks?: Operations };
  // The routes, and the webhook delivery the service sends (listed under its tag too).
  const operationIds = [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})].flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  );

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const requests: string[] = [];
  const offOrigin: string[] = [];
  // Every request of the page and its workers: same-origin ones go through, anything else is recorded and refused.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (new URL(url).origin === origin) return route.continue();
    offOrigin.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const violations: string[] = [];
  await page.exposeFunction('__reportViolation', (v: string) => violations.push(v));
  // Browser-side code as strings: this project compiles without the DOM's types.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => window.__reportViolation(e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber));",
  });
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  const started = performance.now();
  const response = await page.goto(`${stack.url}/docs`, { waitUntil: 'load' });
  if (response?.status() !== 200) failures.push(`GET /docs answered ${response?.status()}`);
  // Redoc's menu: one item per operation, `data-item-id` ending in `operation/<operationId>`.
  const menu = 'li[data-item-id*="operation/"]';
  // Polled from here, not with waitForFunction: its in-page polling evaluates the predicate with eval, which this CSP refuses (a violation of the tool's own).
  const renderedItems = () => page.$$eval(menu, (items) => items.map((li) => li.getAttribute('data-item-id') ?? ''));
  let rendered = await renderedItems();
  for (
    const deadline = Date.now() + 120_000;
    rendered.length < operationIds.length && Date.now() < deadline;
    rendered = await renderedItems()
  )
    await new Promise((r) => setTimeout(r, 100));
  const renderMs = Math.round(performance.now() - started);
  const listed = new Set(rendered.map((id) => id.slice(id.lastIndexOf('operation/') + 'operation/'.length)));
  const missing = operationIds.filter((id) => !listed.has(id));
  if (rendered.length !== operationIds.length || missing.length) {
    failures.push(
      `the menu lists ${rendered.length} operations, the document has ${operationIds.length}; missing: ${missing.join(', ') || 'none'}`,
    );
  }
  // Search (its index is built in Redoc's blob: worker): typing finds an operation.
  await page.fill('input[placeholder="Search..."]', 'login');
  const results = '[data-role="search:results"] li';
  const hits = await page
    .waitForSelector(results, { timeout: 30_000 })
    .then(() => page.$$eval(results, (r) => r.length))
    .catch(() => 0);
  if (hits === 0) failures.push('search found nothing for "login"');
  await page.fill('input[placeholder="Search..."]', '');
  await page.keyboard.press('Escape');
  if (offOrigin.length) failures.push(`requests to another origin: ${offOrigin.join(', ')}`);
  if (violations.length) failures.push(`CSP violations: ${violations.join(', ')}`);
  if (consoleErrors.length) failures.push(`console errors: ${consoleErrors.join(' | ')}`);

  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: OUT });
  const title = await page.title();
  console.log(`Chromium ${browser.version()} rendered ${stack.url}/docs ("${title}") in ${renderMs} ms`);
  console.log(
    `  operations: ${rendered.length} in the menu, ${operationIds.length} in /openapi.json; search "login": ${hits} results`,
  );
  console.log(
    `  requests: ${requests.length}, all to ${origin}: ${[...new Set(requests.map((u) => new URL(u).pathname))].join(', ')}`,
  );
  console.log(
    `  off-origin requests: ${offOrigin.length}; CSP violations: ${violations.length}; console errors: ${consoleErrors.length}`,
  );
  console.log(`  screenshot: ${OUT} (${(await readFile(OUT)).length} bytes)`);
} catch (err) {
  failures.push(String(err));
} finally {
  await browser?.close();
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('OK: /docs renders every operation from this origin only');
process.exit(0);
