import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';

/**
 * The browsable API reference at GET /docs, over real HTTP. (That it renders every
 * operation in a browser is shown by `npm run docs:screenshot`, which needs Chromium.)
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
const REDOC_FILE = readFileSync(
  join(import.meta.dirname, '../../node_modules/redoc/bundles/redoc.standalone.js'),
  'utf8',
);
/** What is served: Redoc's bundle with its one CDN image (the "API docs by Redocly" logo) replaced by an empty data: SVG. */
const REDOC = REDOC_FILE.replace(
  'https://cdn.redoc.ly/redoc/logo-mini.svg',
  () => "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E",
);
const SOURCES_ALLOWED = new Set(["'self'", "'none'", "'unsafe-inline'", 'data:', 'blob:']);

/** Every URL the page names: src, href, spec-url attributes and url(...) in styles. */
const urlsOf = (html: string) =>
  [...html.matchAll(/\b(?:src|href|spec-url|action)\s*=\s*"([^"]*)"|url\(([^)]*)\)/gi)].map((m) => m[1] ?? m[2]);

const directives = (csp: string) =>
  Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );

describe('GET /docs', () => {
  it('is an HTML page rendering /openapi.json with a script from this origin, under a CSP that allows only what it needs', async () => {
    const page = await api.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('public, max-age=300');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    const csp = directives(page.headers.get('content-security-policy') ?? '');
    expect(csp).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'worker-src': ['blob:'],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
    // No host anywhere: neither a CDN nor a font service could be reached under this policy.
    for (const sources of Object.values(csp)) for (const s of sources) expect(SOURCES_ALLOWED).toContain(s);

    // Every URL on the page is a path on this origin (no scheme, no `//host`), and the page names no host at all.
    const urls = urlsOf(page.text);
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const u of urls) expect(u).toMatch(/^\/(?!\/)/);
    expect(page.text).not.toMatch(/https?:|\/\/[a-z]/i);
    expect(page.text).toContain('<redoc spec-url="/openapi.json"');
    expect(urls).toContain('/openapi.json');
    // Redoc's web fonts are replaced by system fonts in its theme.
    expect(page.text).not.toMatch(/Montserrat|fonts\./);
  });

  it('names its script under a content-versioned URL that answers the Redoc bundle with a long, immutable cache', async () => {
    const page = await api.get('/docs');
    const src = urlsOf(page.text).find((u) => u.startsWith('/docs/redoc.standalone.js'))!;
    expect(src).toMatch(/^\/docs\/redoc\.standalone\.js\?v=[\w-]{16}$/);
    const script = await api.get(src);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.text).toBe(REDOC);
    // Redoc names one resource of another host (its logo, on its CDN): it must still be there exactly once to be
    // replaced (a new Redoc that changes it fails here, to be looked at), and the served script names no CDN.
    expect(REDOC_FILE.split('https://cdn.redoc.ly/redoc/logo-mini.svg').length).toBe(2);
    expect(script.text).not.toMatch(/cdn\.|fonts\.googleapis|fonts\.gstatic/);
    // The same page (same version) on a second request: the URL is stable between deploys.
    expect(urlsOf((await api.get('/docs')).text)).toContain(src);
  });

  it('answers the script under another or no version with a short cache only (a page cached from an older deploy)', async () => {
    for (const path of ['/docs/redoc.standalone.js', '/docs/redoc.standalone.js?v=older-version-xyz']) {
      const script = await api.get(path);
      expect([path, script.status, script.headers.get('cache-control')]).toEqual([path, 200, 'public, max-age=300']);
      expect(script.text).toBe(REDOC);
    }
    const bad = await api.get('/docs/redoc.standalone.js?v=%3Cscript%3E');
    expect(bad.status).toBe(422);
  });

  it("serves the document the page renders; the API's JSON answers keep their headers (no page CSP)", async () => {
    const doc = await api.get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toBe('application/json');
    expect(doc.body.openapi).toBe('3.1.0');
    // The reference lists itself: both of its routes are operations of the document.
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/docs', '/docs/redoc.standalone.js', '/openapi.json']),
    );
    expect(doc.headers.get('content-security-policy')).toBeNull();
    const notFound = await api.get('/docs/anything-else');
    expect([notFound.status, notFound.body]).toEqual([404, { detail: 'Not Found' }]);
    expect(notFound.headers.get('content-security-policy')).toBeNull();
  });
});
