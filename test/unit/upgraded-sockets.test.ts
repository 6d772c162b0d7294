import { createServer, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { closeUpgradesWithServer } from '../../infra/local/upgraded-sockets.ts';

/**
 * A server whose upgrades are authorized slowly (as the local stack's ticket check and start:deployed's authorizer
 * are): each waits for `authorize()`, then is accepted, or refused with `end()` when `refuse` is set.
 */
async function slowUpgrades(refuse = false) {
  const server = createServer((_req, res) => res.end('ok'));
  closeUpgradesWithServer(server);
  const wss = new WebSocketServer({ noServer: true });
  let authorize: () => void = () => undefined;
  const authorized = new Promise<void>((r) => (authorize = r));
  const arrived: string[] = [];
  const accepted: WebSocket[] = [];
  server.on('upgrade', (req, socket, head) => {
    arrived.push(req.url ?? '');
    void authorized.then(() => {
      if (refuse) return void socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
      wss.handleUpgrade(req, socket, head, (ws) => accepted.push(ws));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
  return { server, url, arrived, accepted, authorize };
}

/** The stop of the local stack and of start:deployed: every connection closed, then the server. */
const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A client socket, and a promise of how it ended. */
function connect(url: string) {
  const ws = new WebSocket(url);
  ws.on('error', () => undefined);
  const ended = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  return { ws, ended };
}

const poll = <T>(fn: () => T) => expect.poll(fn, { timeout: 5_000 });

describe('closeUpgradesWithServer', { timeout: 15_000 }, () => {
  it('lets a server stop while a WebSocket upgrade is still being authorized, and drops the upgrade', async () => {
    const s = await slowUpgrades();
    const client = connect(s.url);
    await poll(() => s.arrived.length).toBe(1);
    await stop(s.server); // hung for good before: the socket was neither an HTTP connection nor an open WebSocket
    s.authorize();
    expect(await client.ended).toBe(1006);
    expect(s.accepted).toHaveLength(0);
  });

  it('lets a server stop with a WebSocket open, and with a refused upgrade whose client keeps its end open', async () => {
    const open = await slowUpgrades();
    const client = connect(open.url);
    open.authorize();
    await poll(() => open.accepted.length).toBe(1);
    await stop(open.server);
    expect(await client.ended).toBe(1006);

    const refused = await slowUpgrades(true);
    const { port } = refused.server.address() as AddressInfo;
    // A client that reads the refusal but never closes its side (the server's sockets are half-open ones).
    const raw = netConnect({ port, host: '127.0.0.1', allowHalfOpen: true });
    raw.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    let answer = '';
    raw.on('data', (d) => (answer += String(d)));
    await poll(() => refused.arrived.length).toBe(1);
    refused.authorize();
    await poll(() => answer).toContain('401 Unauthorized');
    await stop(refused.server); // hung for good before: the refused socket waited for the client's end
    raw.destroy();
  });

  it('destroys an upgrade that arrives once the stop has begun', async () => {
    const s = await slowUpgrades();
    s.server.closeAllConnections(); // the stop has begun; the listener still accepts until close()
    const client = connect(s.url);
    expect(await client.ended).toBe(1006);
    s.authorize();
    expect(s.accepted).toHaveLength(0);
    await new Promise<void>((r) => s.server.close(() => r()));
  });
});
