import * as z from 'zod';
import { integer } from './schemas.ts';
import { lazySchema } from '#shared/lazy-schema';

/**
 * Paged lists that answer a plain JSON array (SPEC rule 1): `limit` (1–500, default 100) and the
 * opaque `cursor` of a previous answer's `X-Next-Cursor` header. The cursor's encoding and its check
 * (tampered → 422) are `shared/auth/cursor.ts` (signed with the service's key, beside the tokens).
 */
const NEXT_CURSOR_HEADER = 'x-next-cursor';

export const pageQuery = lazySchema(() =>
  z.object({
    limit: integer().min(1).max(500).default(100),
    cursor: z.string().min(1).max(2048).optional(),
  }),
);

/** The answer's headers: the next page's cursor, when there is one (none on the last page). */
export const nextCursorHeaders = (next: string | undefined): Record<string, string> =>
  next ? { [NEXT_CURSOR_HEADER]: next } : {};
