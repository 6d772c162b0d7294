import * as z from 'zod';
import type { AppContext } from '#shared/context';
import { lazySchema } from '#shared/lazy-schema';
import { enqueue } from '#shared/queue';
import { log, errorFields } from '#shared/log';
import type { MailMessage } from './mailer';

/** What the mail queue carries (queued here, parsed once by the mail worker): a message and the id it is sent once under. */
export const queuedMailSchema = lazySchema(() =>
  z.object({
    id: z.string().min(1),
    to: z.string().min(1),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
  }),
);
export type QueuedMail = z.infer<ReturnType<typeof queuedMailSchema>>;

/**
 * Queues a message for the mail worker. A failure to enqueue is logged, never surfaced:
 * the request that wanted the mail has already done its work.
 */
export async function queueMail(message: MailMessage, ctx: AppContext): Promise<void> {
  const queued: QueuedMail = { id: ctx.ids.newId(), ...message };
  try {
    await enqueue('mail', queued);
  } catch (err) {
    log.error('mail not queued', { mail_id: queued.id, subject: message.subject, ...errorFields(err) });
  }
}
