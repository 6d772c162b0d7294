import { config } from '../config.ts';
import { lazyByInvocation } from './background-retries.ts';

/**
 * The SQS SDK is imported at the first message, not at import: most requests of a function that can
 * queue something queue nothing, and a second SDK client loaded at start costs about a fifth of a
 * hello-world's cold start (docs/cold-start.md). The client is the running invocation's kind: a worker,
 * schedule or stream retries through an outage longer than a request, which answers 503 instead.
 */
const sqs = lazyByInvocation(
  () => import('@aws-sdk/client-sqs'),
  (sdk, settings) => new sdk.SQSClient({ region: config().AWS_REGION, ...settings }),
);

/** Sends one message to the queue at `url`. */
export async function sendMessage(url: string, body: string): Promise<void> {
  const { sdk, client } = await sqs();
  await client.send(new sdk.SendMessageCommand({ QueueUrl: url, MessageBody: body }));
}
