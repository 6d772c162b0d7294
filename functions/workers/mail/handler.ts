import { mailer } from '#mail/mailer';
import { claimMail, releaseMail } from '#mail/delivery';
import { queuedMailSchema } from '#mail/send';
import { sqsWorker } from '../batch';

/** Sends queued mail, each message once (see claimMail); failures are reported per message for SQS to retry. */
export const handler = sqsWorker({
  name: 'mail',
  schema: queuedMailSchema,
  inParallel: false,
  failure: 'mail send failed',
  async handle(mail) {
    if (!(await claimMail(mail.id, new Date()))) return; // already sent
    try {
      await mailer().send(mail);
    } catch (err) {
      await releaseMail(mail.id).catch(() => undefined);
      throw err;
    }
  },
});
