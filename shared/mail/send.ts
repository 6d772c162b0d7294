import * as z from 'zod';
import type { AppContext } from '#shared/context';
import { lazySchema } from '#shared/lazy-schema';
import { putItem } from '#db/items';
import type { TransactStep } from '#db/transact';
import { putNewStep } from '#db/steps';
import { outboxItem, settleOutbox } from '#shared/outbox-item';
import type { MailMessage } from './mailer.ts';

/**
 * What the mail queue carries (written to the outbox here, handed to the queue by the outbox reader,
 * parsed once by the mail worker): a message, the id it is sent once under, and when it was asked for
 * (`queued_at`: with the id, its outbox item's key; absent from messages queued before mail went through the outbox).
 */
export const queuedMailSchema = lazySchema(() =>
  z.object({
    id: z.string().min(1),
    queued_at: z.string().min(1).optional(),
    to: z.string().min(1),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
  }),
);
export type QueuedMail = z.infer<ReturnType<typeof queuedMailSchema>>;

/**
 * A mail's outbox item lives a day: links in mail (a password reset, an e-mail change, an invitation)
 * are valid for at most that long, and the text carries their secret token, so it must not outlive
 * them in the table. The mail worker removes it as soon as the mail is sent.
 */
const MAIL_OUTBOX_TTL_SECONDS = 24 * 3600;

/**
 * Mail asked for by a change, as a step of the change's own transaction (the outbox): it exists exactly
 * when the change committed, and a mail-queue outage delays it, never loses it. Its text is never logged.
 */
export const mailStep = (message: MailMessage, ctx: AppContext): TransactStep => putNewStep(mailItem(message, ctx));

function mailItem(message: MailMessage, ctx: AppContext): Record<string, unknown> {
  const now = ctx.clock.now();
  const mail: QueuedMail = {
    id: ctx.ids.newId(),
    queued_at: now.toISOString(),
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  };
  return outboxItem(now, mail.id, 'mail', { mail }, MAIL_OUTBOX_TTL_SECONDS);
}

/**
 * Mail asked for by a request that writes nothing else (an enterprise request, a downgrade reminder):
 * the one-item write of its outbox item. A failure is the request's (it asked for nothing else).
 */
export async function writeMail(message: MailMessage, ctx: AppContext): Promise<void> {
  await putItem(mailItem(message, ctx));
}

/** The mail worker is done with a mail (sent, or sent before): its outbox item, with the text, goes. */
export const settleMail = async (mail: QueuedMail): Promise<void> => {
  if (mail.queued_at) await settleOutbox(mail.queued_at, mail.id);
};
