import { enforceRateLimit } from '#domain/identity';
import { writeMail } from '#mail/send';
import { escapeHtml, oneLine } from '#mail/html';
import type { AppContext } from '#shared/context';

export interface EnterpriseRequest {
  name: string;
  email: string;
  phone?: string | null;
  message: string;
  /** Where the request comes from: limited per source address, since anyone may send one. */
  client: { sourceIp: string };
}

/**
 * POST /enterprise/request (public): the request reaches sales by mail, its outbox item written
 * before the answer (a mail-queue outage delays it, never loses it).
 * Anyone may call it, so it is limited per source address, and the sender's words never shape the
 * mail's headers: control characters (CR/LF included) leave the one-line fields; the message keeps
 * its lines in the plain-text part and is escaped in the HTML part.
 */
/** The control characters a mailed message loses: all but LF and TAB. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose
const MESSAGE_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export async function requestEnterprise(ctx: AppContext, input: EnterpriseRequest): Promise<void> {
  await enforceRateLimit(
    `enterprise#${input.client.sourceIp}`,
    ctx.config.ENTERPRISE_REQUEST_RATE_LIMIT_PER_HOUR,
    3600,
    ctx,
  );
  const name = oneLine(input.name);
  const email = oneLine(input.email);
  const phone = input.phone ? oneLine(input.phone) : '';
  const message = input.message.replace(/\r\n?/g, '\n').replace(MESSAGE_CONTROLS, '').trim();
  const fields = [`Name: ${name}`, `E-mail: ${email}`, ...(phone ? [`Phone: ${phone}`] : [])];
  await writeMail(
    {
      to: ctx.config.SALES_EMAIL,
      subject: `Enterprise request from ${name}`,
      text: [...fields, '', message].join('\n'),
      html: [
        ...fields.map((f) => `<p>${escapeHtml(f)}</p>`),
        `<p>${escapeHtml(message).replace(/\n/g, '<br>')}</p>`,
      ].join('\n'),
    },
    ctx,
  );
}
