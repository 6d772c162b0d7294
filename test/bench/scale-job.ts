import { createWriteStream } from 'node:fs';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runImpexJob } from '#domain/impex';
import { appContext } from '#shared/context';
import { ddb } from '#shared/clients';

/**
 * One export or import job of `npm run bench:scale`, alone in its process (as in the jobs worker's
 * Lambda), so its peak memory is the job's: `tsx test/bench/scale-job.ts <record_id> [capture.jsonl]`.
 * With a capture file, every new item the job writes is appended to it (one JSON line each), for the
 * bench's raw BatchWrite of the same items. Prints one JSON line: {ms, maxRssMb, peakHeapMb}.
 */
const [recordId, capturePath] = process.argv.slice(2);
const capture = capturePath ? createWriteStream(capturePath) : undefined;
if (capture) {
  const client = ddb();
  const send = client.send.bind(client);
  (client as { send: unknown }).send = (command: unknown) => {
    // A staged chunk's journal is the import's own bookkeeping, not an item of the catalog: the raw baseline leaves it out (it counts against the import).
    if (command instanceof TransactWriteCommand) for (const item of command.input.TransactItems ?? []) if (item.Put && !String(item.Put.Item?.SK).startsWith('STAGED#')) capture.write(`${JSON.stringify(item.Put.Item)}\n`);
    if (command instanceof BatchWriteCommand) {
      for (const requests of Object.values(command.input.RequestItems ?? {})) for (const r of requests) if (r.PutRequest) capture.write(`${JSON.stringify(r.PutRequest.Item)}\n`);
    }
    return send(command as never);
  };
}
let peakHeap = 0;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
const started = performance.now();
await runImpexJob(appContext(), { record_id: recordId, lastAttempt: true });
const ms = performance.now() - started;
clearInterval(sampler);
if (capture) await new Promise((resolve) => capture.end(resolve));
console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, peakHeapMb: peakHeap / 2 ** 20 }));
process.exit(0);
