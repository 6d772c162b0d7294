import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SendEmailCommand } from '@aws-sdk/client-ses';
import { ses } from '#shared/clients';
import { config } from '#shared/config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The Mailer port: SES in the cloud, one JSON file per message in the local outbox. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export const sesMailer: Mailer = {
  async send({ to, subject, text, html }) {
    await ses().send(
      new SendEmailCommand({
        Source: config().MAIL_FROM,
        Destination: { ToAddresses: [to] },
        Message: {
          Subject: { Data: subject, Charset: 'UTF-8' },
          Body: { Text: { Data: text, Charset: 'UTF-8' }, Html: { Data: html, Charset: 'UTF-8' } },
        },
      }),
    );
  },
};

export const outboxDir = () => join(config().LOCAL_DATA_DIR, 'outbox');

let sequence = 0;
export const outboxMailer: Mailer = {
  async send(message) {
    await mkdir(outboxDir(), { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${sequence++}.json`;
    const { to, subject, text, html } = message;
    await writeFile(join(outboxDir(), name), JSON.stringify({ to, subject, text, html }, null, 2));
  },
};

export const mailer = (): Mailer => (config().MAIL_TRANSPORT === 'ses' ? sesMailer : outboxMailer);
