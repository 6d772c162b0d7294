import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { StackFunction } from '../cdk/functions.ts';
import { lambdaContext } from './api-event.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Runs one function of the stack in this process with one event, as Lambda calls it: the `handler` export
 * of the very module the stack bundles (`npm run invoke`, and the sample events' test). The local stack
 * (DynamoDB Local, the in-process queues) must be running. As in Lambda, the handler gets its own copy
 * of the event (the HTTP pipeline parses a JSON body in place).
 */
export async function invokeFunction(f: StackFunction, event: unknown, requestId = 'invoke'): Promise<unknown> {
  const mod = (await import(pathToFileURL(join(ROOT, f.entry)).href)) as {
    handler: (event: unknown, context: Context) => Promise<unknown>;
  };
  return mod.handler(structuredClone(event), lambdaContext(requestId, f.name));
}
