import { createWriteStream } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../functions/workers/jobs/handler.ts';
import { ddb } from '#shared/clients';
import type { ImpexJobMessage } from '#domain/impex';

/**
 * One export or import job of `npm run bench:scale`, alone in its process as in the jobs worker's
 * Lambda, so its peak memory is the job's. Not run as TypeScript: scale.ts bundles this file as the
 * stack bundles the worker (deployed-bundle.ts), so the process carries the worker's whole bundle
 * and nothing the Lambda does not, and runs `node index.mjs <import|export> <project_id> <record_id> [capture.jsonl]`.
 * The job goes through the worker's handler, as its SQS message (the last receive, like the queue's
 * fifth). With a capture file, every new item the job writes is appended to it (one JSON line each),
 * for the bench's raw BatchWrite of the same items. Prints one JSON line: {ms, maxRssMb, peakHeapMb}.
 */
const [kind, projectId, recordId, capturePath] = process.argv.slice(2);
const capture = capturePath ? createWriteStream(capturePath) : undefined;
if (capture) {
  // The bundle's own client (one module in one bundle), so the handler's writes pass through here.
  const client = ddb();
  const send = client.send.bind(client);
  (client as { send: unknown }).send = (command: unknown) => {
    const items: unknown[] = [];
    // A staged chunk's journal is the import's own bookkeeping, not an item of the catalog: the raw baseline leaves it out (it counts against the import).
    if (command instanceof TransactWriteCommand)
      for (const item of command.input.TransactItems ?? [])
        if (item.Put && !String(item.Put.Item?.SK).startsWith('STAGED#')) items.push(item.Put.Item);
    if (command instanceof BatchWriteCommand) {
      for (const requests of Object.values(command.input.RequestItems ?? {}))
        for (const r of requests) if (r.PutRequest) items.push(r.PutRequest.Item);
    }
    // One write per request, not per item: the capture's cost to the import kept small.
    if (items.length) capture.write(`${items.map((item) => JSON.stringify(item)).join('\n')}\n`);
    return send(command as never);
  };
}
const event = {
  Records: [
    {
      messageId: `bench-${recordId}`,
      body: JSON.stringify({
        kind: kind as ImpexJobMessage['kind'],
        project_id: projectId,
        record_id: recordId,
      } satisfies ImpexJobMessage),
      attributes: { ApproximateReceiveCount: '5' },
    },
  ],
} as unknown as SQSEvent;
let peakHeap = 0;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
const started = performance.now();
const { batchItemFailures } = await handler(event);
const ms = performance.now() - started;
clearInterval(sampler);
if (capture) await new Promise((resolve) => capture.end(resolve));
// A failed job has logged its error and marked its record; the bench reports the record's status.
if (batchItemFailures.length) console.error(`the ${kind} job failed (the worker reported its message)`);
console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, peakHeapMb: peakHeap / 2 ** 20 }));
process.exit(0);
