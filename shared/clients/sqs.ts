import type { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { captured } from '../tracing';
import { onReset } from './lazy';

/**
 * Sends one message to the queue at `url`. The SQS SDK is imported at the first message, not at
 * import: most requests of a function that can queue something queue nothing, and a second SDK
 * client loaded at start costs about a fifth of a hello-world's cold start (docs/cold-start.md, issue 42).
 */
export async function sendMessage(url: string, body: string): Promise<void> {
  const sdk = await import('@aws-sdk/client-sqs');
  client ??= captured(new sdk.SQSClient({ region: config().AWS_REGION }));
  await client.send(new sdk.SendMessageCommand({ QueueUrl: url, MessageBody: body }));
}
let client: SQSClient | undefined;
onReset(() => {
  client?.destroy();
  client = undefined;
});
