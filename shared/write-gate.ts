import { AsyncLocalStorage } from 'node:async_hooks';
import { changesNothing } from './faults.ts';

/**
 * Holds a request's writes until what they depend on is settled: an `Idempotency-Key`'s claim
 * (shared/http/idempotency.ts). The route's reads go out at once, alongside the claim, and its
 * first write waits for it, so the claim costs no round trip of its own; when the claim fails,
 * every write of the route fails too, so nothing of a request that must not run is written. Every
 * AWS client passes through `withWriteGate` (`captured`, shared/tracing.ts): outside a gate it
 * does nothing.
 */
interface Gate {
  open: Promise<unknown>;
  wrote: boolean;
}
const gates = new AsyncLocalStorage<Gate>();

/**
 * Runs `fn` with its writes held until `open` resolves (and failing with its error when it
 * rejects). `wrote()` tells whether one of them went out.
 */
export function behindGate<T>(
  open: Promise<unknown>,
  fn: () => Promise<T>,
): { result: Promise<T>; wrote: () => boolean } {
  const gate: Gate = { open, wrote: false };
  return { result: gates.run(gate, fn), wrote: () => gate.wrote };
}

type Stack = { add: (mw: unknown, opts: { step: string; priority: string; name: string }) => void };

/** Adds the gate to an AWS SDK client, before its retries (a held call waits once). */
export function withWriteGate<T>(client: T): T {
  (client as { middlewareStack?: Stack }).middlewareStack?.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const gate = gates.getStore();
      if (gate && !changesNothing((context.commandName ?? '').replace(/Command$/, ''))) {
        await gate.open;
        gate.wrote = true;
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'writeGate' },
  );
  return client;
}
