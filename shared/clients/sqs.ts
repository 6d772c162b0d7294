import type { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { captured } from '../tracing';
import { backgroundRetries, nobodyWaits, requestRetries } from './background-retries';
import { onReset } from './lazy';

/**
 * Sends one message to the queue at `url`. The SQS SDK is imported at the first message, not at
 * import: most requests of a function that can queue something queue nothing, and a second SDK
 * client loaded at start costs about a fifth of a hello-world's cold start (docs/cold-start.md).
 * The client is the running invocation's kind (`nobodyWaits`): a worker, schedule or stream retries
 * through an outage longer than a request, which answers 503 instead (background-retries.ts).
 */
export async function sendMessage(url: string, body: string): Promise<void> {
  const sdk = await import('@aws-sdk/client-sqs');
  const kind = nobodyWaits() ? 'background' : 'request';
  const client = (clients[kind] ??= captured(new sdk.SQSClient({ region: config().AWS_REGION, retryStrategy: kind === 'background' ? backgroundRetries : requestRetries })));
  await client.send(new sdk.SendMessageCommand({ QueueUrl: url, MessageBody: body }));
}
const clients: { request?: SQSClient; background?: SQSClient } = {};
onReset(() => {
  for (const kind of ['request', 'background'] as const) {
    clients[kind]?.destroy();
    clients[kind] = undefined;
  }
});
