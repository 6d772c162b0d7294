import { sendMessage } from './clients.ts';
import { config } from './config.ts';

export type QueueName = 'jobs' | 'events' | 'mail';

/** Locally, queue URLs are `local://<name>` and messages go to an in-process transport the local runtime installs. */
type LocalTransport = (queue: QueueName, body: string) => Promise<void>;
let localTransport: LocalTransport | undefined;
/** Installs the local transport; answers the one it replaces (so a test can wrap it and put it back). */
export function useLocalQueueTransport(t: LocalTransport | undefined): LocalTransport | undefined {
  const previous = localTransport;
  localTransport = t;
  return previous;
}

function queueUrl(queue: QueueName): string {
  const c = config();
  return { jobs: c.JOBS_QUEUE_URL, events: c.EVENTS_QUEUE_URL, mail: c.MAIL_QUEUE_URL }[queue];
}

/** Sends one message to a queue (SQS in the cloud). */
export async function enqueue(queue: QueueName, message: unknown): Promise<void> {
  const url = queueUrl(queue);
  const body = JSON.stringify(message);
  if (url.startsWith('local://')) {
    if (!localTransport) throw new Error(`No local transport for queue ${queue}`);
    return localTransport(queue, body);
  }
  await sendMessage(url, body);
}
