import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startLocalStack } from '../../infra/local/stack.ts';
import { ensureWebBuild } from '../../infra/build/web-build.ts';
import { launchChromium } from '../helpers/browser.ts';
import { setPlan } from '../helpers/plans.ts';
import { appContext } from '#shared/context';
import { accountActor } from '#shared/audit';
import { getAccount } from '#domain/identity';
import { applyImport, exampleDocument, planImport } from '#domain/impex';

/**
 * `npm run docs:web-screenshots`: the dashboard's main screens from a real run, saved under docs/
 * (web-sign-in.png, web-services.png, web-service.png, web-topology.png, web-servers.png, web-import-export.png,
 * web-audit-log.png, web-members.png, web-webhooks.png, web-billing.png, web-account.png, web-api-keys.png,
 * web-services-narrow.png). A fresh local stack (in-memory DynamoDB Local); a shop environment arrives through the import engine
 * (the API's specimen document and a dozen more services); Debian's headless Chromium signs in
 * through the sign-in screen and opens each screen.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const PASSWORD = 'correct horse battery';
const dataDir = await mkdtemp(join(tmpdir(), 'infra-catalog-shots-'));
await ensureWebBuild({ say: (l) => console.log(l) });
const stack = await startLocalStack({
  inMemory: true,
  withoutS3: true,
  env: {
    STAGE: 'local',
    PORT: '0',
    LOCAL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    POWERTOOLS_METRICS_DISABLED: 'true',
    LOCAL_DEADLINE_SWEEP_SECONDS: '0',
    LOCAL_OUTBOX_POLL_MS: '0',
    LOCAL_STREAM_POLL_MS: '0',
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: '0',
  },
});
let browser: Browser | undefined;

async function call<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(stack.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function shot(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(ROOT, 'docs', `${name}.png`) });
  console.log(`saved docs/${name}.png`);
}

try {
  const email = 'ann@example.com';
  const account = await call<{ id: string }>('POST', '/auth/register', {
    email,
    password: PASSWORD,
    name: 'Ann Operator',
  });
  await setPlan(account.id, 'Team');
  const { access_token: token } = await call<{ access_token: string }>('POST', '/auth/login', {
    email,
    password: PASSWORD,
  });
  const project = await call<{ id: string }>('POST', '/projects', { name: 'Shop' }, token);
  const env = await call<{ id: string }>(
    'POST',
    '/environments',
    { name: 'production', project_id: project.id },
    token,
  );
  const doc = exampleDocument();
  const more = ['gateway', 'search', 'cart', 'orders', 'inventory', 'redis', 'queue', 'worker', 'mailer', 'analytics'];
  doc.spec.services.push(
    ...more.map((name, i) => ({
      ...doc.spec.services[3],
      name,
      group: i < 5 ? 'backend' : null,
      subgroup: null,
      floor: i % 2 ? 'k8s-node-1.internal' : null,
      category: null,
      tags: [],
    })),
  );
  const c = (a: string, b: string, direction: 'a_to_b' | 'both' | 'none' = 'a_to_b') => ({
    a: { service: a },
    b: { service: b },
    direction,
    name: null,
  });
  doc.spec.connections.push(
    c('gateway', 'web'),
    c('gateway', 'api'),
    c('api', 'search'),
    c('api', 'cart'),
    c('cart', 'redis'),
    c('cart', 'orders'),
    c('orders', 'postgres'),
    c('orders', 'queue'),
    c('worker', 'queue'),
    c('worker', 'mailer'),
    c('orders', 'inventory'),
    c('inventory', 'postgres'),
    c('analytics', 'queue', 'none'),
    c('search', 'redis', 'both'),
  );
  const ctx = appContext();
  const plan = await planImport({ projectId: project.id, environmentId: env.id, document: doc }, ctx);
  if (plan.report.errors.length) throw new Error(`import refused: ${JSON.stringify(plan.report.errors)}`);
  await applyImport(plan, ctx, undefined, {
    importId: 'shots',
    actor: accountActor((await getAccount(account.id))!),
    days: null,
  });

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${stack.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await shot(page, 'web-sign-in');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.url}/p`);

  const base = `${stack.url}/p/${project.id}/e/${env.id}`;
  await page.goto(`${base}/services`);
  await page.locator('table.grid tbody th').first().waitFor();
  await shot(page, 'web-services');
  await page.getByRole('link', { name: 'orders', exact: true }).click();
  await page.locator('.connections li').first().waitFor();
  await shot(page, 'web-service');
  const orders = page.url().split('/').pop()!;
  await page.goto(`${base}/topology?focus=${orders}`);
  await page.locator('.cy[data-drawn="true"]').waitFor({ timeout: 30_000 });
  await page.locator('.blast [data-affected]').first().waitFor();
  await shot(page, 'web-topology');
  const screens: [string, string][] = [
    [`${base}/servers`, 'web-servers'],
    [`${base}/transfer`, 'web-import-export'],
    [`${stack.url}/p/${project.id}/audit`, 'web-audit-log'],
    [`${stack.url}/p/${project.id}/members`, 'web-members'],
    [`${stack.url}/p/${project.id}/webhooks`, 'web-webhooks'],
    [`${stack.url}/account/billing`, 'web-billing'],
    [`${stack.url}/account`, 'web-account'],
  ];
  for (const [address, name] of screens) {
    await page.goto(address);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await shot(page, name);
  }
  // API keys: one for a nightly export, and one for CI made through the form, its value shown once.
  await call('POST', '/me/api-keys', { name: 'nightly export', scopes: ['read'] }, token);
  await page.goto(`${stack.url}/account/api-keys`);
  await page.getByLabel('Key name', { exact: true }).fill('GitHub Actions (shop)');
  await page.getByRole('checkbox', { name: /^Write/ }).check();
  await page.getByRole('checkbox', { name: 'Shop' }).check();
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel("The key's value").waitFor();
  await shot(page, 'web-api-keys');
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${base}/services`);
  await page.locator('table.grid tbody th').first().waitFor();
  await shot(page, 'web-services-narrow');
} finally {
  await browser?.close();
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
