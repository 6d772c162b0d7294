import { readFile } from 'node:fs/promises';
import { findStackFunction, stackFunctions } from '../cdk/functions.ts';
import { invokeFunction } from './invoke-function.ts';
import { startLocalStack } from './stack.ts';

/**
 * `npm run invoke -- <function> <event.json>`: runs one function of the stack with one event against the
 * local data (DynamoDB Local under LOCAL_DATA_DIR, or DYNAMODB_ENDPOINT's), as `sam local invoke` would
 * but without Docker, and prints its result. <function> is a function's name (`auth`, `mail-worker`,
 * `progress-connections`, …) or its construct id (`AuthFunction`); `events/<name>.json` is a sample event
 * for each (`workers/<queue>` still names a worker).
 */
const [name, file] = process.argv.slice(2);
const names = () =>
  stackFunctions()
    .map((f) => f.name)
    .join(', ');
if (!name || !file) {
  console.error(
    `usage: npm run invoke -- <function> <event.json>   (e.g. npm run invoke -- billing events/billing.json)\n  functions: ${names()}`,
  );
  process.exit(2);
}
const fn = findStackFunction(name);
if (!fn) {
  console.error(`unknown function: ${name}\n  functions: ${names()}`);
  process.exit(2);
}
const event = JSON.parse(await readFile(file, 'utf8'));
const stack = await startLocalStack({ withoutHttp: true, quickStart: true });
try {
  const result = await invokeFunction(fn, event);
  await stack.queues.drain();
  console.log(JSON.stringify(result, null, 2));
} finally {
  await stack.stop();
}
