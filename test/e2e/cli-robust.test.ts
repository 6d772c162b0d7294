import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInfracat } from '../helpers/infracat-binary.ts';

/**
 * The real `infracat` binary against servers that are not a working catalog: one that
 * accepts the connection and never answers (CI must not hang), and another web server at the URL.
 */
const listen = async (server: Server | ReturnType<typeof createHttpServer>) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const close = (server: Server | ReturnType<typeof createHttpServer>) =>
  new Promise<void>((r) => server.close(() => r()));

describe('infracat against a server that is not a working catalog', () => {
  let dir: string;
  const sockets: Socket[] = [];
  const hung = createServer((socket) => void sockets.push(socket)); // accepts, reads, never answers
  const other = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>It works!</html>'),
  );
  const urls = { hung: '', other: '' };
  const signIn = { INFRACAT_EMAIL: 'ci@example.com', INFRACAT_PASSWORD: 'not-used-here-1' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'infracat-robust-'));
    urls.hung = await listen(hung);
    urls.other = await listen(other);
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([close(hung), close(other)]);
    await rm(dir, { recursive: true, force: true });
  });

  it('a server that never answers: exit 1 with the timeout message, within the timeout and its retries', async () => {
    const run = await runInfracat(['whoami', '--timeout', '1'], {
      configDir: join(dir, 'a'),
      env: { INFRACAT_URL: urls.hung, ...signIn },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('Error: Request timed out after 1 s: POST /auth/login');
    // 3 tries of 1 s with 1 s and 2 s between them, plus the process' start.
    expect(run.ms).toBeLessThan(15_000);
  }, 30_000);

  it('INFRACAT_TIMEOUT sets it too; a timeout that is not a number is refused', async () => {
    const run = await runInfracat(['whoami'], {
      configDir: join(dir, 'b'),
      env: { INFRACAT_URL: urls.hung, INFRACAT_TIMEOUT: '0.5', ...signIn },
    });
    expect([run.code, run.stderr.trim()]).toEqual([1, 'Error: Request timed out after 0.5 s: POST /auth/login']);
    const bad = await runInfracat(['whoami', '--timeout', 'soon'], {
      configDir: join(dir, 'b'),
      env: { INFRACAT_URL: urls.hung, ...signIn },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("option '--timeout <seconds>' argument 'soon' is invalid. not a number above 0: soon");
  }, 30_000);

  it('another web server at the URL: says the URL is not the API and what GET /plans answered', async () => {
    const run = await runInfracat(['whoami'], {
      configDir: join(dir, 'c'),
      env: { INFRACAT_URL: urls.other, ...signIn },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `Error: ${urls.other} does not look like an Infrastructure Catalog API (GET /plans answered 200 text/html)`,
    );
  }, 30_000);
});
