import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LambdaFunction } from './lambda-functions.ts';

const RUNTIME = join(import.meta.dirname, 'lambda-runtime.ts');
const ROOT = join(import.meta.dirname, '..', '..');

/** A function's invocation failed as Lambda reports it (the handler threw, timed out or its sandbox died). */
export class InvocationError extends Error {
  readonly functionName: string;
  readonly errorType: string;

  constructor(functionName: string, errorType: string, message: string) {
    super(`${functionName}: ${errorType}: ${message}`);
    this.functionName = functionName;
    this.errorType = errorType;
  }
}

interface Sandbox {
  child: ChildProcess;
  busy: boolean;
}
type Reply =
  | { type: 'result'; id: string; result: unknown }
  | { type: 'error'; id: string; error: { errorType: string; errorMessage: string } };

/**
 * The function's MemorySize as a bound on V8's old space (90 % of it, the rest for code and buffers), so a
 * function that outgrows its memory fails here too; a NODE_OPTIONS of the template that sets its own cap wins.
 */
export function heapCap(fn: Pick<LambdaFunction, 'memoryMb' | 'environment'>): string[] {
  if (/--max-old-space-size=/.test(fn.environment.NODE_OPTIONS ?? '')) return [];
  return [`--max-old-space-size=${Math.floor(fn.memoryMb * 0.9)}`];
}

/** What an event is, in a word or a route: the suite lists which of them reached each function. */
export function eventKind(event: unknown): string {
  const e = (event ?? {}) as {
    routeKey?: string;
    type?: string;
    source?: string;
    Records?: { eventSource?: string; eventSourceARN?: string }[];
    requestContext?: { routeKey?: string };
  };
  if (e.Records?.[0]) {
    const arn = e.Records[0].eventSourceARN ?? '';
    return `${e.Records[0].eventSource} ${/:table\/([^/]+)/.exec(arn)?.[1] ?? arn.split(':').at(-1)}`;
  }
  if (e.type === 'REQUEST') return 'WebSocket authorizer';
  if (e.routeKey) return e.routeKey;
  if (e.requestContext?.routeKey) return `WebSocket ${e.requestContext.routeKey}`;
  if (e.source === 'aws.events') return 'schedule';
  return 'direct invoke';
}

const traceId = () =>
  `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`;

/**
 * A function's sandboxes: Node processes running its bundle (lambda-runtime.ts), each kept warm between
 * invocations and given one at a time; an invocation that finds them all busy starts another, up to the
 * function's concurrency, and otherwise waits, as Lambda would throttle. A sandbox whose invocation
 * outlives the function's timeout is killed. Each line a function logs is printed with its name.
 */
export function createSandboxes(fn: LambdaFunction, log: (line: string) => void) {
  const sandboxes = new Set<Sandbox>();
  const waiting: (() => void)[] = [];
  let invocations = 0;
  const reachedBy = new Set<string>();

  async function start(): Promise<Sandbox> {
    const child = fork(RUNTIME, [fn.taskRoot, fn.handler, ROOT], {
      cwd: fn.taskRoot,
      env: fn.environment,
      execArgv: ['--disable-warning=ExperimentalWarning', ...heapCap(fn)],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => log(`[${fn.logicalId}] ${line}`));
    const sandbox: Sandbox = { child, busy: true };
    sandboxes.add(sandbox);
    child.once('exit', () => sandboxes.delete(sandbox));
    await new Promise<void>((resolve, reject) => {
      child.once('message', (m: { type: string; error?: { errorMessage: string } }) =>
        m.type === 'ready'
          ? resolve()
          : reject(new InvocationError(fn.name, 'Runtime.InitError', m.error?.errorMessage ?? 'init failed')),
      );
      child.once('exit', (code) =>
        reject(new InvocationError(fn.name, 'Runtime.ExitError', `sandbox exited during init (${code})`)),
      );
    });
    return sandbox;
  }

  async function acquire(): Promise<Sandbox> {
    for (;;) {
      const idle = [...sandboxes].find((s) => !s.busy);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (sandboxes.size < fn.concurrency) return start();
      await new Promise<void>((r) => waiting.push(r));
    }
  }

  function release(sandbox: Sandbox) {
    if (sandbox.child.killed || sandbox.child.exitCode !== null) sandboxes.delete(sandbox);
    else sandbox.busy = false;
    waiting.shift()?.();
  }

  return {
    fn,
    /** How many invocations this function has had (the suite checks every function ran). */
    get invocations() {
      return invocations;
    },
    /** The kinds of event that reached it (eventKind). */
    get reachedBy() {
      return [...reachedBy];
    },
    async invoke(event: unknown): Promise<unknown> {
      invocations++;
      reachedBy.add(eventKind(event));
      const sandbox = await acquire();
      const id = randomUUID();
      const deadline = Date.now() + fn.timeoutSeconds * 1000;
      try {
        return await new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => {
            sandbox.child.kill('SIGKILL');
            reject(
              new InvocationError(fn.name, 'Sandbox.Timedout', `Task timed out after ${fn.timeoutSeconds} seconds`),
            );
          }, fn.timeoutSeconds * 1000);
          const onMessage = (m: Reply) => {
            if (m.id !== id) return;
            done();
            if (m.type === 'result') resolve(m.result);
            else reject(new InvocationError(fn.name, m.error.errorType, m.error.errorMessage));
          };
          const onExit = (code: number | null) => {
            done();
            reject(new InvocationError(fn.name, 'Runtime.ExitError', `sandbox exited (${code})`));
          };
          const done = () => {
            clearTimeout(timer);
            sandbox.child.off('message', onMessage);
            sandbox.child.off('exit', onExit);
          };
          sandbox.child.on('message', onMessage);
          sandbox.child.once('exit', onExit);
          sandbox.child.send({
            type: 'invoke',
            id,
            event,
            requestId: randomUUID(),
            deadline,
            traceId: traceId(),
            functionArn: fn.arn,
          });
        });
      } finally {
        release(sandbox);
      }
    },
    async stop() {
      await Promise.all(
        [...sandboxes].map(
          (s) =>
            new Promise<void>((r) => {
              if (s.child.exitCode !== null) return r();
              s.child.once('exit', () => r());
              s.child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
export type Sandboxes = ReturnType<typeof createSandboxes>;
