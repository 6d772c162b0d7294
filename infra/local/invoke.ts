import { readFile } from 'node:fs/promises';
import { routeTable, type RouteGroup } from '../../functions/route-table';
import { workerTable } from '../../functions/workers';
import { httpHandler } from '#http/pipeline';
import type { QueueName } from '#shared/queue';
import { lambdaContext } from './api-event';
import { startLocalStack } from './stack';

/**
 * `npm run invoke -- <function> <event.json>`: runs one function with one event against the local
 * stack (DynamoDB Local data under LOCAL_DATA_DIR), as `sam local invoke` would, and prints its result.
 * <function> is a route group (auth, billing, ...) or `workers/<queue>` (workers/mail).
 */
const [name, file] = process.argv.slice(2);
if (!name || !file) {
  console.error(`usage: npm run invoke -- <function> <event.json>\n  functions: ${Object.keys(routeTable).join(', ')}, ${Object.keys(workerTable).map((q) => `workers/${q}`).join(', ')}`);
  process.exit(2);
}
const event = JSON.parse(await readFile(file, 'utf8'));
const worker = name.startsWith('workers/') ? workerTable[name.slice('workers/'.length) as QueueName] : undefined;
const routes = routeTable[name as RouteGroup];
if (!worker && !routes) {
  console.error(`unknown function: ${name}`);
  process.exit(2);
}
const stack = await startLocalStack({ withoutHttp: true, withoutS3: true });
try {
  const result = worker ? await worker.handler(event) : await httpHandler(routes)(event, lambdaContext('invoke', name));
  await stack.queues.drain();
  console.log(JSON.stringify(result, null, 2));
} finally {
  await stack.stop();
}
