import * as z from 'zod';
import { route, ok } from '#http/route';
import { updatedSince, uuid } from '#http/schemas';
import { auditEntryOut, readAuditLog } from '#domain/audit';

/** The header that carries the next page's cursor (the account security log pages the same way). */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

export const auditRoutes = [
  route({
    method: 'GET', path: '/projects/{project_id}/audit-log', auth: 'user', summary: "The project's audit log, newest first (owner or audit.read)",
    params: z.object({ project_id: uuid }),
    query: z.object({
      entity_type: z.string().trim().min(1).max(64).optional(),
      entity_id: uuid.optional(),
      actor_id: uuid.optional(),
      action: z.string().trim().min(1).max(100).optional(),
      /** Inclusive bounds, any ISO 8601 form (read as UTC without an offset). */
      since: updatedSince,
      until: updatedSince,
      limit: z.coerce.number().int().min(1).max(500).default(100),
      cursor: z.string().min(1).max(2000).optional(),
    }),
    responses: { 200: z.array(auditEntryOut) },
    responseHeaders: { [NEXT_CURSOR_HEADER]: 'The cursor of the next page (pass it back as the `cursor` query parameter); absent on the last page' },
    handler: async ({ params, query }, ctx) => {
      const { entries, next } = await readAuditLog(ctx, { ...params, ...query });
      return ok(entries, next ? { headers: { [NEXT_CURSOR_HEADER]: next } } : {});
    },
  }),
];
