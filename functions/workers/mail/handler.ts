import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mailer } from '#mail/mailer';
import { claimMail, releaseMail } from '#mail/delivery';
import type { QueuedMail } from '#mail/send';
import { errorFields, log } from '#shared/log';
import { invocation, withCorrelationId } from '#shared/observe';

/** Sends queued mail, each message once (see claimMail); failures are reported per message for SQS to retry. */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => invocation({ dimensions: { worker: 'mail' } }, () => sendBatch(event));

async function sendBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    // Each message's log lines carry its SQS message id.
    const failed = await withCorrelationId(record.messageId, () => sendOne(record.body));
    if (failed) batchItemFailures.push({ itemIdentifier: record.messageId });
  }
  return { batchItemFailures };
}

/** true when the message must be retried. */
async function sendOne(body: string): Promise<boolean> {
  const mail = JSON.parse(body) as QueuedMail;
  try {
    if (!(await claimMail(mail.id, new Date()))) return false; // already sent
  } catch {
    return true;
  }
  try {
    await mailer().send(mail);
    return false;
  } catch (err) {
    log.error('mail send failed', { mail_id: mail.id, ...errorFields(err) });
    await releaseMail(mail.id).catch(() => undefined);
    return true;
  }
}
