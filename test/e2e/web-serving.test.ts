import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { WEB_DIST, webBuildIsCurrent } from '../../infra/build/web-build.ts';

/**
 * The local server serves the dashboard at `/` (built by the test run's global setup,
 * as `npm start` builds it): index.html for the app's own addresses when a browser asks for a page,
 * hashed files under /assets/, a strict CSP; every API path keeps its own answers.
 */
const ref = useTestStack();
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'; // what a browser sends for a page
const get = (path: string, accept = HTML) => fetch(ref.stack.url + path, { headers: { accept } });
const directives = (csp: string) =>
  Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );

describe('the dashboard on the local server', () => {
  it('is built from the current sources', () => {
    expect(webBuildIsCurrent()).toBe(true);
  });

  it('answers index.html at / and at its deep links, under a CSP allowing nothing inline and no other host', async () => {
    const index = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    for (const path of ['/', '/sign-in', '/p/8a3c/e/77f1/services?name=api', '/p/8a3c/e/77f1/topology']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toBe(index);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const csp = directives((await get('/')).headers.get('content-security-policy')!);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    for (const sources of Object.values(csp))
      for (const s of sources) expect(["'self'", "'none'", 'data:', 'blob:']).toContain(s);
    // No inline script or style in the page: only files of this origin.
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|\sstyle=/);
    expect(index).not.toMatch(/(src|href)="(?!\/)/);
  });

  it('serves the hashed files under /assets/ with a long cache, and a 404 for a file it does not have', async () => {
    const index = await (await get('/')).text();
    const script = /<script type="module" crossorigin src="(\/assets\/[\w.-]+\.js)"><\/script>/.exec(index)![1];
    const res = await get(script, '*/*');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const missing = await get('/assets/nothing-here.js', '*/*');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Not Found' });
    expect((await get('/assets/../package.json', '*/*')).status).toBe(404);
  });

  it('leaves every API path to the API, even when a browser asks for a page, and unknown paths to it when no page is asked', async () => {
    const services = await get('/services?project_id=x');
    expect(services.status).toBe(401);
    expect(services.headers.get('content-type')).toContain('application/json');
    const login = await get('/auth/login'); // a POST route: the API's 405, not the app
    expect(login.status).toBe(405);
    expect((await get('/plans')).headers.get('content-type')).toContain('application/json');
    expect((await get('/docs')).headers.get('content-security-policy')).toContain('worker-src blob:'); // the API reference's own page
    const unknown = await get('/p/8a3c', 'application/json');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Not Found' });
    const post = await fetch(`${ref.stack.url}/sign-in`, { method: 'POST', headers: { accept: HTML } });
    expect(post.status).toBe(404);
  });
});
