import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A server's upgraded sockets (WebSockets) closed with its HTTP connections. `closeAllConnections` reaches only
 * HTTP connections, and `close` waits for every socket: one handed to an 'upgrade' listener, whether open, refused
 * with `end()`, or still being authorized when the stop came (its upgrade finishing after it), kept a stop waiting
 * for good. Every such socket is destroyed at `closeAllConnections`; one arriving after it is destroyed at once (a
 * destroyed socket's pending upgrade is dropped by `ws`).
 */
export function closeUpgradesWithServer(server: Server): void {
  const upgrades = new Set<Duplex>();
  let closing = false;
  server.prependListener('upgrade', (_req, socket: Duplex) => {
    if (closing) return void socket.destroy();
    upgrades.add(socket);
    socket.once('close', () => upgrades.delete(socket));
  });
  const closeHttp = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closing = true;
    for (const socket of upgrades) socket.destroy();
    closeHttp();
  };
}
