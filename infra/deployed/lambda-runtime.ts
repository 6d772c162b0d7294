/**
 * One Lambda sandbox: a Node process that loads one function's asset bundle (the template's
 * Handler, from its asset folder) once, then runs the invocations its parent sends over IPC, one at
 * a time, as the Lambda runtime does. Run by plain `node` (type stripping), importing only Node's
 * own modules: nothing of the project reaches the function but its bundle and the runtime's SDK.
 *
 * argv: <asset folder> <Handler (`index.handler`)> <folder whose node_modules stand in for the Lambda runtime's>
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, registerHooks, type ResolveFnOutput, type ResolveHookContext } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [taskRoot, handlerName, runtimeRoot] = process.argv.slice(2);
const runtimeParent = pathToFileURL(join(runtimeRoot, 'package.json')).href;
/** What the Lambda runtime provides beside a bundle: the AWS SDK v3. */
const RUNTIME_PROVIDED = /^@aws-sdk\//;
/** argon2's loader asks for this machine's binary; the bundle ships the arm64 one, of the same version. */
const ARGON2_NATIVE = /^@node-rs\/argon2-linux-(x64|arm64)-(gnu|musl)(\/package\.json)?$/;

function shippedArgon2Version(): string | undefined {
  const file = join(taskRoot, 'node_modules/@node-rs/argon2-linux-arm64-gnu/package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

const runtimeRequire = createRequire(runtimeParent);
/** Resolves as if from the runtime's folder: `require` by its own algorithm (a changed parentURL is not followed for it), `import` by the next hook. */
function fromRuntime(
  specifier: string,
  context: ResolveHookContext,
  nextResolve: (s: string, c?: Partial<ResolveHookContext>) => ResolveFnOutput,
): ResolveFnOutput {
  if (context.conditions?.includes('require'))
    return { url: pathToFileURL(runtimeRequire.resolve(specifier)).href, shortCircuit: true };
  return nextResolve(specifier, { ...context, parentURL: runtimeParent });
}

const inTaskRoot = (url: string | undefined) =>
  !!url?.startsWith('file:') && fileURLToPath(url).startsWith(taskRoot + sep);

registerHooks({
  resolve(specifier, context, nextResolve) {
    // Only what the bundle itself asks for is policed; the runtime's SDK resolves its own dependencies.
    if (
      !inTaskRoot(context.parentURL) ||
      specifier.startsWith('node:') ||
      specifier.startsWith('.') ||
      specifier.startsWith('file:')
    )
      return nextResolve(specifier, context);
    if (RUNTIME_PROVIDED.test(specifier)) return fromRuntime(specifier, context, nextResolve);
    if (ARGON2_NATIVE.test(specifier)) {
      const local = fromRuntime(specifier, context, nextResolve);
      const version = (
        JSON.parse(readFileSync(new URL('package.json', local.url.replace(/package\.json$/, '')), 'utf8')) as {
          version: string;
        }
      ).version;
      if (version !== shippedArgon2Version())
        throw new Error(
          `argon2: this machine's ${specifier}@${version} is not the shipped arm64 build's version (${shippedArgon2Version()})`,
        );
      return local;
    }
    const resolved = nextResolve(specifier, context);
    if (resolved.url.startsWith('file:') && !inTaskRoot(resolved.url))
      throw new Error(
        `${specifier} is not shipped in the function's bundle (${taskRoot}); it resolved to ${resolved.url}`,
      );
    return resolved;
  },
});

interface Invoke {
  type: 'invoke';
  id: string;
  event: unknown;
  requestId: string;
  deadline: number;
  traceId: string;
  functionArn: string;
}

function handlerModule(): string {
  const base = handlerName.slice(0, handlerName.lastIndexOf('.'));
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(taskRoot, base + ext)).find(existsSync);
  if (!file) throw new Error(`Handler ${handlerName}: no ${base}.mjs/.js/.cjs in ${taskRoot}`);
  return file;
}

const errorOf = (err: unknown) => ({
  errorType: err instanceof Error ? err.name : 'Error',
  errorMessage: err instanceof Error ? err.message : String(err),
  stack: err instanceof Error ? err.stack?.split('\n') : undefined,
});

const send = (message: unknown) => new Promise<void>((r) => process.send!(message, () => r()));

try {
  const mod = (await import(pathToFileURL(handlerModule()).href)) as Record<string, unknown>;
  const handler = mod[handlerName.slice(handlerName.lastIndexOf('.') + 1)];
  if (typeof handler !== 'function') throw new Error(`Handler ${handlerName} is not a function`);
  process.on('message', async (m: Invoke) => {
    if (m.type !== 'invoke') return;
    process.env._X_AMZN_TRACE_ID = m.traceId;
    const context = {
      callbackWaitsForEmptyEventLoop: true,
      functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
      functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
      invokedFunctionArn: m.functionArn,
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
      awsRequestId: m.requestId,
      logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
      logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
      getRemainingTimeInMillis: () => Math.max(0, m.deadline - Date.now()),
    };
    try {
      const result = await (handler as (e: unknown, c: unknown) => Promise<unknown>)(m.event, context);
      await send({ type: 'result', id: m.id, result });
    } catch (err) {
      await send({ type: 'error', id: m.id, error: errorOf(err) });
    }
  });
  await send({ type: 'ready' });
} catch (err) {
  await send({ type: 'init-error', error: errorOf(err) });
  process.exit(1);
}
