import * as z from 'zod';
import { route, ok } from '#http/route';
import { updatedSince, uuid } from '#http/schemas';
import { nextCursorHeaders, pageQuery } from '#http/paging';
import { accountAuditEntryOut, auditEntryOut, readAccountAuditLog, readAuditLog } from '#domain/audit';
import { CUSTOM_FIELD_KEY } from '#domain/catalog';

/** The filters both logs take. */
const filters = () => ({
  entity_type: z.string().trim().min(1).max(64).optional(),
  entity_id: uuid().optional(),
  actor_id: uuid().optional(),
  action: z.string().trim().min(1).max(100).optional(),
  /** Inclusive bounds, any ISO 8601 form (read as UTC without an offset). */
  since: updatedSince(),
  until: updatedSince(),
});

export const auditRoutes = [
  route({
    method: 'GET',
    path: '/projects/{project_id}/audit-log',
    auth: 'user',
    summary: "The project's audit log, newest first (owner or audit.read)",
    params: () => z.object({ project_id: uuid() }),
    query: () =>
      pageQuery().extend({
        ...filters(),
        /** An entity's id, or a custom field definition's key (its entries' entity, docs/decisions/0977). */
        entity_id: z.union([uuid(), z.string().regex(CUSTOM_FIELD_KEY)]).optional(),
      }),
    responses: () => ({ 200: z.array(auditEntryOut()) }),
    refusals: [403, 404],
    handler: async ({ params, query }, ctx) => {
      const { entries, next } = await readAuditLog(ctx, { ...params, ...query });
      return ok(entries, { headers: nextCursorHeaders(next ?? undefined) });
    },
  }),
  route({
    method: 'GET',
    path: '/me/audit-log',
    auth: 'user',
    summary: "The caller's account-level audit log (API keys, plan changes), newest first",
    query: () => pageQuery().extend(filters()),
    responses: () => ({ 200: z.array(accountAuditEntryOut()) }),
    refusals: [],
    handler: async ({ query }, ctx) => {
      const { entries, next } = await readAccountAuditLog(ctx, query);
      return ok(entries, { headers: nextCursorHeaders(next ?? undefined) });
    },
  }),
];
