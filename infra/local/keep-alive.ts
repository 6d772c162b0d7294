import type { Server } from 'node:http';

/**
 * How long a local server keeps an idle connection: longer than any client here keeps one (fetch closes
 * its idle connections after 4 s), so the client always closes first. With Node's default (5 s and 1 s of grace), a
 * request sent on a connection the server was closing at that moment failed with ECONNRESET, which a
 * busy machine (timers firing late) made happen.
 */
const IDLE_MS = 65_000;

export function outlastClientIdle<S extends Server>(server: S): S {
  server.keepAliveTimeout = IDLE_MS;
  // Node requires the headers' deadline beyond the idle one, or it can cut a request short on a reused connection.
  server.headersTimeout = IDLE_MS + 1000;
  return server;
}
