import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postTo } from '../../shared/domain/webhooks/ssrf.ts';

/** Receivers that misbehave the ways real ones do; each delivery attempt must end, with what happened. */
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/ok') return res.writeHead(204).end();
    if (req.url === '/error') return res.writeHead(500).end('boom');
    if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    if (req.url === '/close') return req.socket.destroy();
    if (req.url === '/hang') return; // accepts the connection, never answers
    if (req.url === '/trickle') {
      // Headers at once, then a byte now and then, forever: no idle timeout ever fires.
      res.writeHead(200);
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const at = (path: string) => ({ url: new URL(base + path), address: '127.0.0.1', family: 4 as const });
const post = (path: string) => postTo(at(path), '{}', {}, { timeoutMs: 400 });

describe('a delivery attempt against a misbehaving receiver', () => {
  it('reports the status of a receiver that answers, 5xx included, and never follows a redirect', async () => {
    expect((await post('/ok')).status).toBe(204);
    expect(await post('/error')).toMatchObject({ status: 500, body: 'boom' });
    expect((await post('/redirect')).status).toBe(302);
  });

  it('ends with no status when the receiver closes the connection', async () => {
    const r = await post('/close');
    expect(r.status).toBeNull();
    expect(r.body).toMatch(/socket hang up|ECONNRESET/);
  });

  it.each(['/hang', '/trickle'])('gives up on %s at its deadline, whatever the receiver does', async (path) => {
    const r = await post(path);
    expect(r.durationMs).toBeLessThan(1500);
    expect(r.status).toBeNull();
    expect(r.body).toBe('no response within 0.4 s');
  });
});
