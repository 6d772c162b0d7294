import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestStack, type TestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { createService } from '../helpers/catalog.ts';
import { setPlan } from '../helpers/plans.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { launchChromium } from '../helpers/browser.ts';
import { follow } from '../helpers/live.ts';

/**
 * The dashboard live (issue 46): two browsers on one environment's services; a rename made in one
 * appears in the other's table with no reload; the header's indicator says reconnecting while the
 * server is down and live again once it is back (the same port, table and data: a restart). A table
 * reads once its feed follows the environment, so a change made while it is read is applied after; the
 * environment's next screen keeps the same feed.
 */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let stack: TestStack;
let env: Record<string, string>;
let dataDir: string;
let browser: Browser;
const api = client(() => stack.url);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'web-live-'));
  env = {
    PORT: String(await freePort()),
    TABLE_NAME: `web-live-${randomUUID()}`,
    LOCAL_DATA_DIR: dataDir,
    LOCAL_STREAM_POLL_MS: '100',
  };
  stack = await startTestStack(env, { ownStack: true });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function signedIn(email: string, password: string, path: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${stack.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/sign-in'));
  await page.goto(`${stack.url}${path}`);
  return page;
}

const liveState = (page: Page) => page.locator('.live-indicator').getAttribute('data-live');
const rowNames = (page: Page) => page.locator('table.grid tbody th').allTextContents();
const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });

describe('the dashboard follows changes live', { timeout: 180_000 }, () => {
  it("shows a rename made in one browser in the other's table within 2 s, and reconnects after the server restarts", async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const colleague = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    await grantRole(api, owner.token, envId, colleague.id, 'manager');
    const svc = await createService(api, owner.token, projectId, envId, { name: 'billing' });
    const services = `/p/${projectId}/e/${envId}/services`;
    const [mine, theirs] = await Promise.all([
      signedIn(owner.email, owner.password, `${services}/${svc.id}/edit`),
      signedIn(colleague.email, colleague.password, services),
    ]);
    await poll(() => rowNames(theirs)).toEqual(['billing']);
    await poll(() => liveState(theirs)).toBe('live');
    await poll(() => liveState(mine)).toBe('live');

    // The rename, in the owner's form; the colleague's table changes with no reload.
    await mine.getByLabel('Name', { exact: true }).fill('billing-v2');
    await mine.getByRole('button', { name: 'Save changes' }).click();
    await mine.waitForURL((u) => !u.pathname.endsWith('/edit'));
    // How soon (2 s at p95) is npm run bench's live part; here, that it comes.
    await poll(() => rowNames(theirs), 10_000).toEqual(['billing-v2']);

    // The server stops: reconnecting; it comes back: live again (the table still right, nothing reloaded).
    await stack.stop();
    await poll(() => liveState(theirs)).toBe('reconnecting');
    stack = await startTestStack(env, { ownStack: true });
    await poll(() => liveState(theirs)).toBe('live');
    const renamed = await api.patch(`/services/${svc.id}`, { name: 'billing-v3' }, { token: owner.token });
    expect(renamed.status, renamed.text).toBe(200);
    await poll(() => rowNames(theirs)).toEqual(['billing-v3']);
  });

  it('misses no change made while a table is being read: it reads once its feed follows, and applies what came meanwhile', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const svc = await createService(api, owner.token, projectId, envId, { name: 'ledger' });
    const page = await signedIn(owner.email, owner.password, `/p/${projectId}`);
    // The list's answer is read from the server, then held back until the rename below is made and numbered.
    let answerRead!: () => void;
    const read = new Promise<void>((r) => (answerRead = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    page.on('response', (r) => new URL(r.url()).pathname === '/live/ticket' && order.push('ticket'));
    await page.route(
      (u) => u.pathname === '/services',
      async (route) => {
        order.push('list');
        const response = await route.fetch();
        answerRead();
        await released;
        await route.fulfill({ response });
      },
    );
    await page.goto(`${stack.url}/p/${projectId}/e/${envId}/services`);
    await read;
    const probe = await follow(api, owner.token, { project_id: projectId, environment_id: envId });
    const renamed = await api.patch(`/services/${svc.id}`, { name: 'ledger-v2' }, { token: owner.token });
    expect(renamed.status, renamed.text).toBe(200);
    await probe.next((m) => m.id === svc.id && m.op === 'updated');
    probe.close();
    release();
    await poll(() => rowNames(page), 10_000).toEqual(['ledger-v2']);
    expect(order.slice(0, 2)).toEqual(['ticket', 'list']);
    // On to the service's page: the environment's feed is the same one (no second ticket), its reads at once.
    await page.getByRole('link', { name: 'ledger-v2' }).click();
    await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ledger-v2');
    expect(order.filter((o) => o === 'ticket')).toEqual(['ticket']);
    // A list read still held in the handler when the page closes fails there, not as an unhandled error.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.context().close();
  });
});
