import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp } from '../helpers/http.ts';
import { launchChromium } from '../helpers/browser.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { addService, connect } from '../helpers/topology.ts';

/**
 * The topology screen in a browser takes live changes through its feed (`applyChange`, what the live
 * subscription calls; here through the page's `__topologyChange`): a service added, renamed, a change it
 * cannot place (read again, answered 304 from the copy it holds).
 */
vi.setConfig({ testTimeout: 90_000 });
const ref = useTestStack({ LOCAL_STREAM_POLL_MS: '100' });
const api = client(() => ref.stack.url);
let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});
afterAll(() => browser?.close());

describe('the topology screen and live changes', () => {
  it('applies a new service and a rename without reading again; a change it cannot place reads again with If-None-Match (304)', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await addService(api, owner.token, projectId, envId, 'web');
    const db = await addService(api, owner.token, projectId, envId, 'db');
    await connect(api, owner.token, {
      project_id: projectId,
      environment_id: envId,
      a_type: 'service',
      a_id: web,
      b_type: 'service',
      b_id: db,
      direction: 'a_to_b',
    });
    await page.goto(`${ref.stack.url}/sign-in`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${ref.stack.url}/p`);
    await page.goto(`${ref.stack.url}/p/${projectId}/e/${envId}/topology`);
    const canvas = page.locator('.cy');
    await expect.poll(() => canvas.getAttribute('data-drawn'), { timeout: 30_000 }).toBe('true');
    expect(await canvas.getAttribute('aria-label')).toBe('Topology: 2 services, 0 servers, 0 networks, 1 edges');
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live');

    const reads: number[] = [];
    page.on('response', (r) => new URL(r.url()).pathname === '/topology' && reads.push(r.status()));
    const change = (c: unknown) => page.evaluate(`window.__topologyChange(${JSON.stringify(c)})`);

    const cache = crypto.randomUUID();
    await change({ kind: 'service', id: cache, op: 'created', item: { name: 'cache' } });
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toBe('Topology: 3 services, 0 servers, 0 networks, 1 edges');
    // The node renamed is one only this page knows: the feed may still bring the changes of the writes above
    // (the link made updates `db` too), and one coming after this rename would put db's own name back.
    await change({ kind: 'service', id: cache, op: 'updated', item: { name: 'postgres' } });
    await page.getByLabel('Find').fill('postgres');
    await expect.poll(() => page.getByText('1 found').count()).toBe(1);
    expect(reads).toEqual([]);

    // A change arriving just after a gathered batch is handed over to be drawn waits for the next batch:
    // the second change is handed in by a timer due with the first batch's, so it runs right after it.
    const [queue, search] = [crypto.randomUUID(), crypto.randomUUID()];
    await page.evaluate(`(() => {
      window.__topologyChange(${JSON.stringify({ kind: 'service', id: queue, op: 'created', item: { name: 'queue' } })});
      setTimeout(() => window.__topologyChange(${JSON.stringify({ kind: 'service', id: search, op: 'created', item: { name: 'search' } })}), 250);
    })()`);
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toBe('Topology: 5 services, 0 servers, 0 networks, 1 edges');
    expect(reads).toEqual([]);

    // A link it never saw by id: read again; the snapshot has not changed, so 304 and the copy held.
    await change({ kind: 'link', id: crypto.randomUUID(), op: 'deleted' });
    await expect.poll(() => reads).toEqual([304]);
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toBe('Topology: 2 services, 0 servers, 0 networks, 1 edges');
  });

  it("draws what another client changes through the environment's live feed, without a reload", async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const web = await addService(api, owner.token, projectId, envId, 'web');
    await page.goto(`${ref.stack.url}/sign-in`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${ref.stack.url}/p`);
    await page.goto(`${ref.stack.url}/p/${projectId}/e/${envId}/topology`);
    const canvas = page.locator('.cy');
    await expect.poll(() => canvas.getAttribute('data-drawn'), { timeout: 30_000 }).toBe('true');
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live');
    let loads = 0;
    page.on('load', () => loads++);

    await addService(api, owner.token, projectId, envId, 'cache');
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toBe('Topology: 2 services, 0 servers, 0 networks, 0 edges');
    expect((await api.patch(`/services/${web}`, { name: 'frontend' }, { token: owner.token })).status).toBe(200);
    await page.getByLabel('Find').fill('frontend');
    await expect.poll(() => page.getByText('1 found').count()).toBe(1);
    expect(loads).toBe(0);
  });
});
