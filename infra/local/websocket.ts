import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { impexProgressOf } from '#domain/impex';
import { discoveryProgressOf } from '#domain/discovery';
import { liveConnectionItems, startLive } from '#domain/live';
import { connect, disconnect, spendTicket, syncConnection } from '#shared/progress';
import { appContext, type Clock } from '#shared/context';
import { useLocalPushSender } from '#shared/push';
import { errorFields, log } from '#shared/log';
import { closeUpgradesWithServer } from './upgraded-sockets.ts';

export const LOCAL_WS_PATH = '/ws/progress';

/**
 * The local stand-in for the WebSocket API: upgrades on `/ws/progress?ticket=…` run the same
 * ticket check and connection bookkeeping as the cloud's `$connect`/`$disconnect`, and the
 * progress sender posts to these sockets as the management API posts to API Gateway's.
 */
export function attachLocalWebSockets(server: Server, clock?: Clock): void {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Map<string, WebSocket>();
  useLocalPushSender(
    async (connectionId, message) => {
      const ws = sockets.get(connectionId);
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(message);
      return true;
    },
    async (connectionId) => {
      const ws = sockets.get(connectionId);
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.close(1000, 'access ended');
      return true;
    },
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (url.pathname !== LOCAL_WS_PATH) return void socket.destroy();
    const ctx = appContext({ clock });
    spendTicket(ctx, url.searchParams.get('ticket') ?? undefined).then(
      (who) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          const connectionId = randomUUID();
          sockets.set(connectionId, ws);
          // As API Gateway: a connection's messages reach the handler only once its $connect has succeeded,
          // and one after the other. Every event of the connection ($connect, each message, $disconnect)
          // is chained on `turn`, so a `sync` sent the moment the socket opens finds the connection recorded.
          let connected = true;
          const live = who.live;
          const recorded = live
            ? connect(ctx, {
                connectionId,
                userId: who.userId,
                envId: live.environment_id,
                also: liveConnectionItems(connectionId, who.userId, live),
              })
            : connect(ctx, { connectionId, userId: who.userId, jobId: who.jobId });
          let turn: Promise<void> = recorded.catch((err) => {
            connected = false;
            log.error('websocket connection not recorded', errorFields(err));
            ws.close(1011);
          });
          const then = (step: () => Promise<void>) => {
            turn = turn
              .then(() => (connected ? step() : undefined))
              .catch((err) => log.warn('websocket message not handled', errorFields(err)));
          };
          ws.on('message', () =>
            then(() =>
              live
                ? startLive(ctx, connectionId)
                : syncConnection({ connectionId }, [impexProgressOf, discoveryProgressOf]),
            ),
          );
          ws.on('close', () => {
            sockets.delete(connectionId);
            then(() => disconnect({ connectionId })); // after $connect's write, or the record would outlive the socket
          });
        }),
      () => {
        // As API Gateway refuses a $connect its authorizer denies.
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      },
    );
  });
  // Closing every connection (a stop) closes the sockets too, those still being authorized included.
  closeUpgradesWithServer(server);
  server.on('close', () => useLocalPushSender(undefined));
}
