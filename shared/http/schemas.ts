import { z } from 'zod';

/** Building blocks shared by route schemas. */
export const uuid = z.uuid();
export const email = z.email().max(254);
export const isoTimestamp = z.iso.datetime({ offset: true });
/** Nullable optional free text with a length cap. */
export const text = (max: number) => z.string().max(max).nullish();
export const detail = z.object({ detail: z.string() });

export const accountOut = z.object({
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
});

export const tokenPair = z.object({ access_token: z.string(), refresh_token: z.string(), token_type: z.literal('bearer') });

/** A sync cursor: ISO 8601 with offset, normalized to UTC so it compares with stored timestamps. */
export const updatedSince = isoTimestamp.transform((s) => new Date(s).toISOString()).optional();
/** A display name: trimmed, non-empty. */
export const name = (max = 200) => z.string().trim().min(1).max(max);
/** The header that tells a syncing client where to resume. */
export const syncHeaders = (since: string | undefined, now: Date): Record<string, string> => (since ? { 'x-sync-timestamp': now.toISOString() } : {});
