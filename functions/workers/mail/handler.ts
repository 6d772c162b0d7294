import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { mailer } from '#mail/mailer';
import type { QueuedMail } from '#mail/send';
import { errorFields, log } from '#shared/log';

const SENT_MARKER_DAYS = 7;
const marker = (id: string) => ({ PK: `MAIL#${id}`, SK: 'SENT' });

/**
 * Sends queued mail. SQS delivers at least once, so each message id is claimed with a conditional
 * write first: a redelivered message finds its claim and is not sent again.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const TableName = config().TABLE_NAME;
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const mail = JSON.parse(record.body) as QueuedMail;
    try {
      await ddb().send(
        new PutCommand({
          TableName,
          Item: { ...marker(mail.id), expires_at_epoch: Math.floor(Date.now() / 1000) + SENT_MARKER_DAYS * 86_400 },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) continue; // already sent
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await mailer().send(mail);
    } catch (err) {
      log.error('mail send failed', { mail_id: mail.id, ...errorFields(err) });
      await ddb().send(new DeleteCommand({ TableName, Key: marker(mail.id) })).catch(() => undefined);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
