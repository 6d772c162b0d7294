/**
 * The client's transport: every request's tries, each aborted after its timeout, sent again when it got no
 * answer and running it twice does what running it once does.
 */
import { RequestTimeoutError } from './errors.ts';

export const IDEMPOTENCY_KEY = 'idempotency-key';
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Tries in all of a request that got no answer (network error, timeout): a hung server is not waited on more than this many times. */
const TRANSPORT_ATTEMPTS = 3;
/**
 * A request that got no answer may have run: it is sent again only when running it twice does what
 * running it once does: idempotent methods, and a POST carrying its Idempotency-Key (the server
 * answers a repeat from the first run). A PATCH is retried only on an answer that says so (`retryLater`).
 */
const safeToResend = (request: Request) =>
  ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method) ||
  (request.method === 'POST' && request.headers.has(IDEMPOTENCY_KEY));

/**
 * Every request goes through here: each try aborted after `timeoutMs`; a try that got no answer
 * (network error, timeout) is sent again when `safeToResend`, up to TRANSPORT_ATTEMPTS tries with
 * backoff (1 s, 2 s, …). The last failure is thrown: a timeout as `RequestTimeoutError`.
 */
export function transport(
  send: (req: Request, init: { signal: AbortSignal }) => Promise<Response>,
  timeoutMs: number,
  baseUrl: string,
  sleep: (ms: number) => Promise<void>,
): (req: Request) => Promise<Response> {
  return async (request) => {
    const label = `${request.method} ${new URL(request.url).pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length) || '/'}`;
    // The body as bytes, sent anew by each try (a streamed body would be spent, and would not heed the abort).
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 1; ; attempt++) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      try {
        // The signal goes to fetch itself, not on a Request made for it: Node's fetch (undici) links a
        // Request's own signal to the one it was given through a weak reference, so once that Request was
        // garbage-collected (the CLI's process, with tsx's loader, collects soon) the abort reached nothing
        // and a try on a hung socket never ended.
        return await send(new Request(request, { body }), { signal: abort.signal });
      } catch (err) {
        const timedOut = abort.signal.aborted;
        if (attempt >= TRANSPORT_ATTEMPTS || !safeToResend(request) || !(timedOut || err instanceof TypeError))
          throw timedOut ? new RequestTimeoutError(timeoutMs, label) : err;
        await sleep(1000 * 2 ** (attempt - 1));
      } finally {
        clearTimeout(timer);
      }
    }
  };
}
