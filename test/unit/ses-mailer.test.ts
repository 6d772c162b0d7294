import { describe, expect, it, beforeEach } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { sesMailer } from '#mail/mailer';
import { reloadConfig } from '#shared/config';

const ses = mockClient(SESClient);

describe('SES mailer', () => {
  beforeEach(() => {
    ses.reset();
    reloadConfig({ MAIL_FROM: 'catalog@example.com' });
  });

  it('sends a plain-text and an HTML part from the configured sender', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm1' });
    await sesMailer.send({ to: 'ann@example.com', subject: 'Hi', text: 'plain', html: '<p>html</p>' });
    const input = ses.commandCalls(SendEmailCommand)[0].args[0].input;
    expect(input).toMatchObject({
      Source: 'catalog@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: { Subject: { Data: 'Hi' }, Body: { Text: { Data: 'plain' }, Html: { Data: '<p>html</p>' } } },
    });
  });

  it('lets a send failure reach the worker, which retries', async () => {
    ses.on(SendEmailCommand).rejects(new Error('Throttling'));
    await expect(sesMailer.send({ to: 'a@example.com', subject: 's', text: 't', html: 'h' })).rejects.toThrow(
      'Throttling',
    );
  });
});
