import * as z from 'zod';
import { route, ok } from '#http/route';
import { uuid, integer } from '#http/schemas';
import { search, SEARCH_KINDS } from '#domain/catalog';

/** The kinds a search reads: a comma-separated list (`kinds=service,network`), or the parameter repeated. */
const kinds = () =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(SEARCH_KINDS)));

const searchResult = () =>
  z.object({
    kind: z.enum(SEARCH_KINDS),
    id: z.string(),
    name: z.string(),
    environment_id: z.string(),
    match: z.object({ field: z.string(), value: z.string() }),
  });

/** GET /search: one box over services, floors and networks, scoped as their lists. */
export const searchRoute = route({
  method: 'GET',
  path: '/search',
  auth: 'user',
  summary: 'Services, service floors and networks by name, hostname, tag, address or network, best first',
  query: () =>
    z.object({
      project_id: uuid(),
      q: z.string().trim().min(1).max(200),
      environment_id: uuid().optional(),
      kinds: kinds().optional(),
      limit: integer().min(1).max(100).default(20),
    }),
  responses: () => ({ 200: z.object({ results: z.array(searchResult()) }) }),
  refusals: [400, 404],
  handler: async ({ query }, ctx) => ok(await search(ctx, query)),
});
