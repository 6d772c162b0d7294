import * as z from 'zod';

import { isoTimestamp } from '#shared/schemas';
import { lazySchema } from '#shared/lazy-schema';
/** Field building blocks live with the domain (shared/schemas.ts); routes import them from here too. */
export { uuid, email, text, name } from '#shared/schemas';

/** An integer from a query string or form (`?limit=20`): `abc` or `1.5` is "expected an integer", not zod's "received NaN". */
export const INTEGER_EXPECTED = 'Invalid input: expected an integer';
const integerError = (issue: { code: string; input?: unknown }) =>
  issue.code === 'invalid_type' && issue.input !== undefined ? INTEGER_EXPECTED : undefined;
export const integer = () => z.coerce.number({ error: integerError }).int({ error: integerError });

export const accountOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    is_superuser: z.boolean(),
    is_staff: z.boolean(),
    admin_role: z.string().nullable(),
    preferred_language: z.string().nullable(),
    navigation_mode: z.string().nullable(),
    job_title: z.string().nullable(),
    timezone: z.string().nullable(),
    table_density: z.string().nullable(),
  }),
);

export const tokenPair = lazySchema(() =>
  z.object({ access_token: z.string(), refresh_token: z.string(), token_type: z.literal('bearer') }),
);

/**
 * A sync cursor in any ISO 8601 form clients send: with an offset, without one (read as UTC, the
 * clock of every stored timestamp and of X-Sync-Timestamp), or a bare date (its midnight UTC).
 * Normalized to UTC so it compares with stored timestamps.
 */
const syncCursorForms = lazySchema(() => z.union([isoTimestamp(), z.iso.datetime({ local: true }), z.iso.date()]));
const withUtcDefault = (s: string) => (s.includes('T') && !/(z|[+-]\d\d:\d\d)$/i.test(s) ? `${s}Z` : s);
export const updatedSince = lazySchema(() =>
  z
    .string()
    .refine((s) => syncCursorForms().safeParse(s).success, { message: 'Invalid ISO 8601 timestamp' })
    .transform((s) => new Date(withUtcDefault(s)).toISOString())
    .optional(),
);
/**
 * How far the sync cursor reaches back before the request: a write whose `updated_at` was stamped
 * just before this read began but committed during it is then picked up by the next sync (a client
 * may see such an item twice; syncs are idempotent by id).
 */
export const SYNC_OVERLAP_MS = 2000;
/**
 * The header that tells a syncing client where to resume: the request's arrival, less the overlap.
 * Every call of a list that accepts `updated_since` sends it, with or without the parameter, so the
 * first full read already hands out the cursor of the next sync. (`_since` is the list's parameter,
 * kept so each list states what it syncs on.)
 */
export const syncHeaders = (_since: string | undefined, receivedAt: Date): Record<string, string> => ({
  'x-sync-timestamp': new Date(receivedAt.getTime() - SYNC_OVERLAP_MS).toISOString(),
});
