import * as z from 'zod';
import { route, ok, type Route } from '#http/route';
import { uuid } from '#http/schemas';
import { floorView, serviceView } from '#domain/catalog';
import { apiKeyOut } from '#domain/billing';
import {
  ARCHIVABLE_KINDS,
  archivedSummary,
  listArchived,
  markArchived,
  unarchive,
  type ArchivableKind,
} from '#domain/lifecycle';
import { lazySchema } from '#shared/lazy-schema';

/** Archive and restore: /me/mark-archived, /me/unarchive, /me/archived/*. */

/** At most this many ids per kind in one request. */
const MAX_IDS_PER_KIND = 100;
export const AT_LEAST_ONE_ID = 'At least one id is required';

const ids = lazySchema(() => z.array(uuid()).max(MAX_IDS_PER_KIND).optional());
/** The resources chosen, per kind; every kind optional, at least one id in all (else a 422 naming the body). */
const selectionBody = lazySchema(() =>
  z
    .object({ services: ids(), environments: ids(), project_users: ids(), api_keys: ids(), service_floors: ids() })
    .refine((b) => ARCHIVABLE_KINDS.some((k) => (b[k]?.length ?? 0) > 0), { message: AT_LEAST_ONE_ID }),
);

const perKind = <S extends z.ZodType>(schema: S) =>
  z.object(Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, schema])) as Record<ArchivableKind, S>);
const outcome = lazySchema(() =>
  z.object({
    counts: perKind(z.number().int()),
    items: perKind(z.array(z.object({ id: z.uuid(), name: z.string() }))),
    /** Resources not written although others were (a selection larger than one transaction), each with its refusal. */
    refused: z.array(z.object({ kind: z.enum(ARCHIVABLE_KINDS), id: z.uuid(), detail: z.string() })),
  }),
);

const archivedAt = () => ({ archived_at: z.string() });
/** Each kind's usual answer plus `archived_at`. */
const archivedShapes = (): Record<ArchivableKind, z.ZodType> => ({
  services: serviceView.schema.extend(archivedAt()),
  environments: z.object({
    id: z.uuid(),
    name: z.string(),
    project_id: z.uuid(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
    ...archivedAt(),
  }),
  project_users: z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    email: z.string().nullable(),
    job_title: z.string().nullable(),
    phone: z.string().nullable(),
    notes: z.string().nullable(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
    ...archivedAt(),
  }),
  api_keys: apiKeyOut().extend(archivedAt()),
  service_floors: floorView.schema.extend(archivedAt()),
});
/** URL form of each kind. */
const PATHS: Record<ArchivableKind, string> = {
  services: 'services',
  environments: 'environments',
  project_users: 'project-users',
  api_keys: 'api-keys',
  service_floors: 'service-floors',
};

export const archiveRoutes: Route[] = [
  route({
    method: 'POST',
    path: '/me/mark-archived',
    auth: 'user',
    summary: "Archive the caller's own resources (hidden from lists, never deleted; their plan slots are free again)",
    body: selectionBody,
    responses: () => ({ 200: outcome() }),
    refusals: [403, 404, 409],
    handler: async ({ body }, ctx) => ok(await markArchived(ctx, body)),
  }),
  route({
    method: 'POST',
    path: '/me/unarchive',
    auth: 'user',
    summary: "Restore archived resources of the caller's (within the current plan's limits)",
    body: selectionBody,
    responses: () => ({ 200: outcome() }),
    refusals: [403, 404, 409],
    handler: async ({ body }, ctx) => ok(await unarchive(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/me/archived/summary',
    auth: 'user',
    summary: "The caller's archived resources: counts per kind",
    responses: () => ({ 200: perKind(z.number().int()) }),
    handler: async (_req, ctx) => ok(await archivedSummary(ctx)),
  }),
  ...ARCHIVABLE_KINDS.map((kind) =>
    route({
      method: 'GET',
      path: `/me/archived/${PATHS[kind]}`,
      auth: 'user',
      summary: `The caller's archived ${PATHS[kind].replace('-', ' ')}, newest archived first`,
      responses: () => ({ 200: z.array(archivedShapes()[kind]) }),
      handler: async (_req, ctx) => ok(await listArchived(ctx, { kind })),
    }),
  ),
];
