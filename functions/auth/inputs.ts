import * as z from 'zod';
import type { ClientMeta } from '#domain/identity';
import { lazySchema } from '#shared/lazy-schema';

/** What the account and authenticator routes read alike: a second-factor code, recent proof of identity, the client. */

/** A six-digit authenticator code or a recovery code; its format is judged by the domain (a bad one is a refusal, not a 422). */
export const totpCode = lazySchema(() => z.string().max(64).nullish());
/**
 * Recent proof of identity for a sensitive change: the current password, and a code (authenticator
 * or recovery) when the account has an authenticator. Optional here: a missing one is the domain's
 * 401 'Current password required' / 'TOTP code required', so a client learns what to ask for.
 */
export const proof = () => ({ current_password: z.string().max(1024).nullish(), totp_code: totpCode() });

/** Where the request comes from (sessions record it, rate limits count per address). */
export const client = (req: ClientMeta): ClientMeta => ({ sourceIp: req.sourceIp, userAgent: req.userAgent });
