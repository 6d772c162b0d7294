import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json } from '../template.ts';

/** What the Stripe stand-in answers an API request with. */
export type Answer = { status: number; body: unknown };

export const now = () => Math.floor(Date.now() / 1000);

export const token = (length: number) =>
  randomBytes(length).toString('base64url').replace(/[-_]/g, '').slice(0, length);

export const stripeError = (type: string, message: string, param?: string, code?: string) => ({
  error: { type, message, ...(param ? { param } : {}), ...(code ? { code } : {}) },
});

export const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function answer(res: ServerResponse, { status, body }: Answer, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_${token(14)}`,
    ...headers,
  });
  res.end(text);
}

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A hosted page: never cached, and a CSP that allows nothing but its inline style and forms to itself. */
export function html(res: ServerResponse, status: number, title: string, body: string): true {
  const text =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>` +
    `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em}button{font-size:1em;padding:.5em 1.5em}</style></head><body>${body}</body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
  return true;
}

export function redirect(res: ServerResponse, location: string): true {
  res.writeHead(303, { location, 'cache-control': 'no-store', 'content-length': '0' }).end();
  return true;
}

/** `a[b][0][c]=x&a[b][1][c]=y` → `{ a: { b: [{ c: 'x' }, { c: 'y' }] } }`. */
export function decodeForm(raw: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root;
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value;
      else node = node[segment] ??= {};
    });
  }
  return arrays(root) as Json;
}

/** Objects whose keys are exactly 0…n-1 become arrays. */
function arrays(node: unknown): unknown {
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const keys = Object.keys(object);
  const converted = Object.fromEntries(keys.map((k) => [k, arrays(object[k])]));
  const indexed = keys.length > 0 && keys.every((k, i) => k === String(i));
  return indexed ? keys.map((k) => converted[k]) : converted;
}
