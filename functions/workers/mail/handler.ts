import { mailer } from '#mail/mailer';
import { claimMail, releaseMail } from '#mail/delivery';
import { queuedMailSchema, settleMail } from '#mail/send';
import { sqsWorker } from '../batch.ts';

/**
 * Sends queued mail, each message once (see claimMail); failures are reported per message for SQS to
 * retry. Once sent (now or before), the mail's outbox item, which holds its text, goes.
 */
export const handler = sqsWorker({
  name: 'mail',
  schema: queuedMailSchema,
  inParallel: false,
  failure: 'mail send failed',
  async handle(mail) {
    if (await claimMail(mail.id, new Date())) {
      try {
        await mailer().send({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      } catch (err) {
        await releaseMail(mail.id).catch(() => undefined);
        throw err;
      }
    } // else: sent already
    await settleMail(mail);
  },
});
