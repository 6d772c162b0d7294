import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '#mail/html';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em}button{font-size:1em;padding:.5em 1.5em}' +
  'label{display:block;margin:.5em 0}input{font-size:1em;width:100%;box-sizing:border-box;padding:.3em}fieldset{margin:1.5em 0}' +
  '.ok{color:#146c2e}.err{color:#a4161a}code{background:#f3f3f3;padding:0 .2em}';

/**
 * Answers one small HTML page of the local server (payment pages, the invitation page): never cached,
 * and a CSP that allows nothing but its inline style, forms to itself and, when it has one, its own
 * inline script (by hash) calling this server's API.
 */
export function htmlPage(res: ServerResponse, status: number, title: string, body: string, script?: string): true {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;
  const scriptSrc = script
    ? `; script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'; connect-src 'self'`
    : '';
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${scriptSrc}`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
  return true;
}
