import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createInfracatClient, followJob, type JobProgress } from '../../clients/typescript/src/index.ts';

/**
 * `followJob` never waits forever: a progress socket that is accepted and then says
 * nothing is given up for the status route, and a job that never finishes ends in an error at the deadline.
 */
const JOB = '33333333-3333-4333-8333-333333333333';
let server: Server;
let sockets: WebSocketServer;
let baseUrl = '';
const state = { polls: 0, finishAfter: Infinity };

const record = (status: string) => ({
  id: JOB,
  job_id: JOB,
  kind: 'import',
  status,
  progress: { pct: status === 'succeeded' ? 100 : 10, done: 1, total: 10 },
});

beforeAll(async () => {
  sockets = new WebSocketServer({ noServer: true });
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/impex/progress-ticket')
      return res.end(JSON.stringify({ ticket: 't', url: `${baseUrl.replace('http', 'ws')}/ws`, expires_in: 60 }));
    if (url.pathname === `/impex/status/${JOB}`) {
      state.polls++;
      return res.end(JSON.stringify(record(state.polls >= state.finishAfter ? 'succeeded' : 'running')));
    }
    res.statusCode = 404;
    res.end('{"detail":"Not found"}');
  });
  // Accepted, then silent: no message ever (a push lost, a job that died without a word).
  server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head, () => {}));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  sockets.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('followJob', () => {
  it('gives a silent progress socket up and polls the status route to the end', async () => {
    state.polls = 0;
    state.finishAfter = 2;
    const seen: JobProgress[] = [];
    const done = await followJob(createInfracatClient({ baseUrl, accessToken: 'a' }), JOB, {
      silenceMs: 300,
      pollMs: 20,
      onProgress: (p) => void seen.push(p),
    });
    expect(done.status).toBe('succeeded');
    expect(seen.map((p) => p.via)).toEqual(['polling', 'polling']);
  });

  it('throws at its deadline when the job never finishes, whatever the socket does', async () => {
    state.polls = 0;
    state.finishAfter = Infinity;
    const started = Date.now();
    await expect(
      followJob(createInfracatClient({ baseUrl, accessToken: 'a' }), JOB, { timeoutMs: 500, pollMs: 20 }),
    ).rejects.toThrow(`job ${JOB} did not finish in time`);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
