import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mailer } from '#mail/mailer';
import { claimMail, releaseMail } from '#mail/delivery';
import type { QueuedMail } from '#mail/send';
import { errorFields, log } from '#shared/log';

/** Sends queued mail, each message once (see claimMail); failures are reported per message for SQS to retry. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const mail = JSON.parse(record.body) as QueuedMail;
    try {
      if (!(await claimMail(mail.id, new Date()))) continue; // already sent
    } catch {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await mailer().send(mail);
    } catch (err) {
      log.error('mail send failed', { mail_id: mail.id, ...errorFields(err) });
      await releaseMail(mail.id).catch(() => undefined);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
