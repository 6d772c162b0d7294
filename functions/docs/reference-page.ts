import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The browsable API reference (GET /docs): Redoc 2's standalone bundle rendering the served
 * `/openapi.json`, everything from this origin (docs/decisions/0071-api-reference-page.md).
 *
 * The 1.1 MB script is never imported: the docs function's cold start would parse it. It is read
 * from disk on the first request that needs it — beside the bundle in Lambda (the stack's
 * `afterBundling` copies it there), from node_modules when run from the source tree (`npm start`, tests).
 */
export const REDOC_FILE = 'redoc.standalone.js';
export const REDOC_SOURCE = 'node_modules/redoc/bundles/redoc.standalone.js';
const CANDIDATES = [join(import.meta.dirname, REDOC_FILE), join(import.meta.dirname, '../..', REDOC_SOURCE)];

export const PAGE_PATH = '/docs';
export const SCRIPT_PATH = `/docs/${REDOC_FILE}`;
export const DOCUMENT_PATH = '/openapi.json';

/**
 * What the page may load, and nothing else: its script from this origin; the styles Redoc's
 * styled-components inject inline; the document fetched from this origin; the search index's
 * worker, which Redoc starts from a blob: URL. No fonts, frames, forms or other hosts.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page changes with a deploy only: a few minutes in caches. */
export const PAGE_CACHE = 'public, max-age=300';
/** The script under its content-versioned URL never changes. */
export const SCRIPT_CACHE = 'public, max-age=31536000, immutable';

/**
 * Redoc 2.5 always renders, under its menu, an "API docs by Redocly" link whose logo is an image from
 * Redocly's CDN (no option turns it off). The CSP would refuse it (and report a violation): the served
 * script names an empty SVG instead, so the page asks nothing of another host. The e2e test fails if
 * a new Redoc no longer holds this URL exactly once, so an upgrade is looked at.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
export const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";
export const servedScript = (original: string) => original.replace(REDOC_CDN_LOGO, EMPTY_SVG);

let script: Promise<{ body: string; version: string }> | undefined;

/** Redoc's bundle as served and its content version (the first 16 characters of its SHA-256, base64url), read once. */
export function redocScript(): Promise<{ body: string; version: string }> {
  script ??= (async () => {
    for (const file of CANDIDATES) {
      const original = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (original === undefined) continue;
      const body = servedScript(original);
      return { body, version: createHash('sha256').update(body).digest('base64url').slice(0, 16) };
    }
    throw new Error(`${REDOC_FILE} not found (looked in ${CANDIDATES.join(', ')})`);
  })().catch((err) => {
    script = undefined; // a later request tries again
    throw err;
  });
  return script;
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Redoc's default theme names web fonts (Roboto, Montserrat) a page would fetch from a font host:
 * system fonts instead. Options are attributes of `<redoc>` (`theme` as JSON), so the page needs no inline script.
 */
const THEME = {
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
    code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace' },
  },
};

export function referencePage(scriptVersion: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Infrastructure Catalog API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="${DOCUMENT_PATH}" theme="${attr(JSON.stringify(THEME))}" expand-responses="200,201" path-in-middle-panel="true"></redoc>
<script src="${SCRIPT_PATH}?v=${attr(scriptVersion)}"></script>
</body>
</html>
`;
}
