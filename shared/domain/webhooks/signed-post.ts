import { createHmac } from 'node:crypto';
import type { AppContext } from '#shared/context';
import { open } from '#auth/secret-box';
import type { Webhook } from './webhook-entity.ts';
import { type CheckedTarget, checkTarget, postTo, type PostResult } from './ssrf.ts';
import { secretContext } from './webhooks.ts';

/**
 * A signed POST to a webhook: the signature headers (SPEC's and the Standard Webhooks ones, the
 * previous secret's too during a rotation's grace), the send with the URL checked again first, and
 * what counts as a successful answer. Deliveries, redeliveries and pings all send through it.
 */

/** The two signatures: SPEC's `X-Service-Signature` and the Standard Webhooks headers (both secrets sign during a rotation's grace). */
export function signatureHeaders(
  webhook: Pick<Webhook, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const ts = Math.floor(at.getTime() / 1000);
  const secrets = [webhook.secret];
  if (webhook.previous_secret && webhook.previous_secret_until && webhook.previous_secret_until > at.toISOString())
    secrets.push(webhook.previous_secret);
  const spec = (s: string) => `sha256=${createHmac('sha256', s).update(body).digest('hex')}`;
  const standard = (s: string) =>
    `v1,${createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64'))
      .update(`${id}.${ts}.${body}`)
      .digest('base64')}`;
  return {
    'x-service-signature': spec(secrets[0]),
    ...(secrets[1] ? { 'x-service-signature-previous': spec(secrets[1]) } : {}),
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map(standard).join(' '),
  };
}

/** One POST of `body` to the webhook, the URL checked again first (a refused target is a failed attempt without a connection). */
export async function sendSigned(webhook: Webhook, id: string, body: string, ctx: AppContext): Promise<PostResult> {
  let target: CheckedTarget;
  try {
    target = await checkTarget(webhook.url, ctx.config);
  } catch (err) {
    return { status: null, durationMs: 0, body: `refused target: ${(err as Error).message}` };
  }
  const at = ctx.clock.now();
  const inGrace =
    !!webhook.previous_secret && !!webhook.previous_secret_until && webhook.previous_secret_until > at.toISOString();
  const [secret, previous] = await Promise.all([
    open(webhook.secret, secretContext(webhook.id)),
    inGrace ? open(webhook.previous_secret!, secretContext(webhook.id)) : null,
  ]);
  return postTo(
    target,
    body,
    signatureHeaders(
      { secret, previous_secret: previous, previous_secret_until: webhook.previous_secret_until },
      id,
      at,
      body,
    ),
  );
}

export const ok = (r: PostResult) => r.status !== null && r.status >= 200 && r.status < 300;
