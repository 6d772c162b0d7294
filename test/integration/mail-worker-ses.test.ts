import { beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import type { SQSEvent } from 'aws-lambda';
import { useTestStack } from '../helpers/stack.ts';
import { handler } from '../../functions/workers/mail/handler.ts';

/** The mail worker as deployed: SES as the mailer (mocked), the idempotency claim in DynamoDB Local. */
const ref = useTestStack({ MAIL_TRANSPORT: 'ses', MAIL_FROM: 'catalog@example.com' }, { withoutHttp: true });
const ses = mockClient(SESClient);
beforeEach(() => ses.reset());

const delivery = (body: object): SQSEvent => {
  const messageId = randomUUID(); // SQS gives each delivery of a message its own receipt; the mail id stays the same
  return {
    Records: [
      {
        messageId,
        receiptHandle: messageId,
        body: JSON.stringify(body),
        attributes: {} as never,
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn',
        awsRegion: 'local',
      },
    ],
  };
};
const mail = () => ({
  id: randomUUID(),
  to: 'ann@example.com',
  subject: 'Invitation',
  text: 'plain part',
  html: '<p>html part</p>',
});

describe('mail worker with SES', () => {
  it('sends a redelivered message once, with its plain-text and HTML parts', async () => {
    expect(ref.stack.config.MAIL_TRANSPORT).toBe('ses');
    ses.on(SendEmailCommand).resolves({ MessageId: 'm1' });
    const m = mail();
    expect((await handler(delivery(m))).batchItemFailures).toEqual([]);
    expect((await handler(delivery(m))).batchItemFailures).toEqual([]);
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toMatchObject({
      Source: 'catalog@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: {
        Subject: { Data: 'Invitation' },
        Body: { Text: { Data: 'plain part' }, Html: { Data: '<p>html part</p>' } },
      },
    });
  });

  it('reports a failed send for redelivery and sends it when redelivered', async () => {
    ses.on(SendEmailCommand).rejectsOnce(new Error('Throttling')).resolves({ MessageId: 'm2' });
    const m = mail();
    const first = delivery(m);
    expect((await handler(first)).batchItemFailures).toEqual([{ itemIdentifier: first.Records[0].messageId }]);
    expect((await handler(delivery(m))).batchItemFailures).toEqual([]);
    expect((await handler(delivery(m))).batchItemFailures).toEqual([]);
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(2); // the failed attempt and the one that went out
  });
});
