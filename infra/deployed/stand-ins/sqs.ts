import { createHash, randomUUID } from 'node:crypto';
import type { FaultInjector } from '../../../shared/faults.ts';
import type { Iam } from '../iam.ts';
import type { Json } from '../template.ts';
import { json, jsonError, jsonOperation, type AwsRequest, type AwsResponse } from './aws-request.ts';

/** A queue of the template: its visibility timeout and redrive policy. */
export interface QueueSpec {
  arn: string;
  url: string;
  visibilityTimeoutSeconds: number;
  redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
}

interface Message {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  visibleAt: number;
  receiptHandle?: string;
}

/** A received message as SQS's JSON protocol returns it. */
export interface ReceivedMessage {
  MessageId: string;
  ReceiptHandle: string;
  MD5OfBody: string;
  Body: string;
  Attributes: Record<string, string>;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/**
 * SQS for the template's queues (JSON protocol, `X-Amz-Target: AmazonSQS.*`): SendMessage, ReceiveMessage,
 * DeleteMessage, ChangeMessageVisibility and GetQueueAttributes, with visibility timeouts, receive
 * counts and the redrive to the dead-letter queue after maxReceiveCount receives. The event source
 * mappings use the same operations in-process (`receive`, `remove`, `changeVisibility`). With faults
 * on (`FAULTS`' `sqs.reorder`), a receive holds a message back for a later one, behind those sent after it;
 * `sqs.unavailable`, `sqs.throttle` and `sqs.error` refuse a SendMessage as SQS would (a queue outage).
 */
export function createSqs(specs: QueueSpec[], iam: Iam, opts: { now?: () => number; faults?: FaultInjector } = {}) {
  const now = opts.now ?? Date.now;
  let faults = opts.faults;
  const queues = new Map(specs.map((s) => [s.arn, { spec: s, messages: [] as Message[] }]));
  const byUrl = new Map(specs.map((s) => [s.url, s.arn]));
  const queueOf = (arn: string) => {
    const q = queues.get(arn);
    if (!q) throw new Error(`no queue ${arn}`);
    return q;
  };

  function send(arn: string, body: string): { MessageId: string; MD5OfMessageBody: string } {
    const m: Message = { id: randomUUID(), body, md5: md5(body), sentAt: now(), receiveCount: 0, visibleAt: now() };
    queueOf(arn).messages.push(m);
    return { MessageId: m.id, MD5OfMessageBody: m.md5 };
  }

  function receive(arn: string, max: number, visibilityTimeoutSeconds?: number): ReceivedMessage[] {
    const q = queueOf(arn);
    const out: ReceivedMessage[] = [];
    for (const m of [...q.messages]) {
      if (out.length >= max) break;
      if (m.visibleAt > now()) continue;
      if (faults?.strikes('sqs', 'reorder')) continue;
      // Received maxReceiveCount times and failed each time: SQS moves it to the dead-letter queue instead.
      if (q.spec.redrive && m.receiveCount >= q.spec.redrive.maxReceiveCount) {
        q.messages.splice(q.messages.indexOf(m), 1);
        queueOf(q.spec.redrive.deadLetterTargetArn).messages.push({ ...m, receiptHandle: undefined, visibleAt: now() });
        continue;
      }
      m.receiveCount++;
      m.firstReceiveAt ??= now();
      m.receiptHandle = `${m.id}:${randomUUID()}`;
      m.visibleAt = now() + (visibilityTimeoutSeconds ?? q.spec.visibilityTimeoutSeconds) * 1000;
      out.push({
        MessageId: m.id,
        ReceiptHandle: m.receiptHandle,
        MD5OfBody: m.md5,
        Body: m.body,
        Attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(m.sentAt),
          ApproximateFirstReceiveTimestamp: String(m.firstReceiveAt),
          SenderId: 'local',
        },
      });
    }
    return out;
  }

  const byHandle = (arn: string, handle: string) => queueOf(arn).messages.find((m) => m.receiptHandle === handle);
  function remove(arn: string, handle: string): void {
    const q = queueOf(arn);
    const m = byHandle(arn, handle);
    if (m) q.messages.splice(q.messages.indexOf(m), 1);
  }
  function changeVisibility(arn: string, handle: string, seconds: number): void {
    const m = byHandle(arn, handle);
    if (m) m.visibleAt = now() + seconds * 1000;
  }
  /** Visible, and received but not yet deleted. */
  const counts = (arn: string) => {
    const { messages } = queueOf(arn);
    const visible = messages.filter((m) => m.visibleAt <= now()).length;
    return { visible, inFlight: messages.length - visible };
  };

  /** Operation → the IAM action it needs and what it does. */
  const OPERATIONS: Record<string, (arn: string, input: Json) => unknown> = {
    SendMessage: (arn, input) => send(arn, String(input.MessageBody)),
    ReceiveMessage: (arn, input) => ({
      Messages: receive(arn, Number(input.MaxNumberOfMessages ?? 1), input.VisibilityTimeout),
    }),
    DeleteMessage: (arn, input) => (remove(arn, String(input.ReceiptHandle)), {}),
    ChangeMessageVisibility: (arn, input) => (
      changeVisibility(arn, String(input.ReceiptHandle), Number(input.VisibilityTimeout)), {}
    ),
    GetQueueAttributes: (arn) => {
      const { visible, inFlight } = counts(arn);
      return {
        Attributes: {
          QueueArn: arn,
          ApproximateNumberOfMessages: String(visible),
          ApproximateNumberOfMessagesNotVisible: String(inFlight),
        },
      };
    },
  };

  async function handle(req: AwsRequest): Promise<AwsResponse> {
    const { operation, input } = jsonOperation(req);
    const run = OPERATIONS[operation];
    if (!run) return jsonError('UnsupportedOperation', `the local SQS does not implement ${operation}`);
    const arn = byUrl.get(String(input.QueueUrl));
    if (!arn) return jsonError('com.amazonaws.sqs#QueueDoesNotExist', 'The specified queue does not exist.');
    if (!(await iam.allows(req.accessKeyId, `sqs:${operation}`, arn)))
      return jsonError('AccessDeniedException', iam.message(req.accessKeyId, `sqs:${operation}`, arn));
    // A send refused as SQS refuses one in an outage (`sqs.unavailable`, `sqs.throttle`, `sqs.error`): nothing is queued.
    if (operation === 'SendMessage' && faults?.strikes('sqs', 'unavailable'))
      return jsonError('ServiceUnavailable', 'Service is unavailable (injected fault)', 503);
    if (operation === 'SendMessage' && faults?.strikes('sqs', 'throttle'))
      return jsonError('ThrottlingException', 'Rate exceeded (injected fault)', 400);
    if (operation === 'SendMessage' && faults?.strikes('sqs', 'error'))
      return jsonError('InternalError', 'Internal error (injected fault)', 500);
    return json(run(arn, input));
  }

  const deadLetterQueues = new Set(specs.flatMap((s) => (s.redrive ? [s.redrive.deadLetterTargetArn] : [])));
  return {
    handle,
    send,
    receive,
    remove,
    changeVisibility,
    counts,
    arns: () => [...queues.keys()],
    isDeadLetterQueue: (arn: string) => deadLetterQueues.has(arn),
    /** The queue faults from now on (a tester's outage: `faultInjector('sqs.unavailable:1')`, then `undefined`); the run's FAULTS at start. */
    useFaults(f: FaultInjector | undefined) {
      faults = f;
    },
  };
}
export type Sqs = ReturnType<typeof createSqs>;
