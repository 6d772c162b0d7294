import { keys } from '#db/keys';
import { CASCADE_STALE, type TransactStep } from '#db/transact';
import type { LookupRefs } from '#domain/tenancy';
import { lookupStep, type Key } from '#db/lookup';
import { softDeleteStep, type Condition } from '#db/live';
import { IF_EXISTS, setExpression } from '#db/steps';
import { connectionListing, linkListing } from './topology/listings.ts';
import { refsAsRead } from '#db/refs';

/**
 * What the catalog kinds (services, service floors, networks) share: their items live under
 * `<KIND>#<environmentId>#<id>` in the project's partition, are located by bare id through the id
 * lookup (which also records the environment, so the caller's role there is read in the same
 * BatchGet as the item), and are soft-deleted.
 */

export type CatalogKind = 'service' | 'floor' | 'network';

/** The id lookup of a catalog item, with its environment and optional hints (see services: floor and group ids). */
export function catalogLookupStep(
  id: string,
  projectId: string,
  envId: string,
  key: Key,
  kind: CatalogKind,
  refs: LookupRefs = {},
): TransactStep {
  return lookupStep(id, projectId, key, kind, { environment_id: envId, ...refs });
}

/** Case-insensitive "contains" over optional strings. */
export const containsCi = (haystack: string | null | undefined, needle: string) =>
  Boolean(haystack?.toLowerCase().includes(needle.toLowerCase()));
export const equalsCi = (a: string | null | undefined, b: string) => Boolean(a && a.toLowerCase() === b.toLowerCase());
/** Match-any tag filter, ignoring case. */
export const hasAnyTag = (tags: string[] | undefined, wanted: string[]) => {
  const lower = new Set(wanted.map((t) => t.toLowerCase()));
  return (tags ?? []).some((t) => lower.has(t.toLowerCase()));
};
/** The `location` filter: provider, region or zone contains the text. */
export const atLocation = (
  i: { provider?: string | null; provider_region?: string | null; provider_zone?: string | null },
  text: string,
) => containsCi(i.provider, text) || containsCi(i.provider_region, text) || containsCi(i.provider_zone, text);

/**
 * The steps that remove, with an entity, the live connections (either end) and links (either
 * end) touching it: items of the topology group, soft-deleted as that group deletes them, with
 * their listings; a connection that belongs to a chain leaves it (the chain's `connection_count`
 * drops, one step per chain). Both are those of the entity's own listing ranges (what it
 * reads grows with its connections and links, not the environment's). `asRead` is the condition
 * for the entity's own write that no edge was added since it was read (db/refs.ts): it must be
 * read before this is called.
 */
export async function edgeRemovalSteps(
  projectId: string,
  envId: string,
  entity: { id: string; refs_version?: number | null },
  withLinks: boolean,
  now: string,
): Promise<{ steps: TransactStep[]; asRead: Condition }> {
  // An entity's range lists exactly the connections and links with it as an end (ends never change).
  const [connections, links] = await Promise.all([
    connectionListing.livePage(projectId, envId, { offset: 0, place: entity.id }),
    withLinks ? linkListing.livePage(projectId, envId, { offset: 0, place: entity.id }) : Promise.resolve([]),
  ]);
  const leaving = new Map<string, number>();
  for (const c of connections) if (c.chain_id) leaving.set(c.chain_id, (leaving.get(c.chain_id) ?? 0) + 1);
  const steps = [
    // Each connection with its listings (after it: a cascade committed in chunks never drops a live connection's listing first).
    ...connections.flatMap((c) => [
      softDeleteStep(keys.connection(projectId, envId, c.id), now, CASCADE_STALE),
      ...connectionListing.steps(c, null),
    ]),
    ...links.flatMap((l) => [
      softDeleteStep(keys.link(projectId, envId, l.id), now, CASCADE_STALE),
      ...linkListing.steps(l, null),
    ]),
    ...[...leaving].map(
      ([chainId, n]): TransactStep => ({
        Update: {
          Key: keys.connectionChain(projectId, envId, chainId),
          ...setExpression({ updated_at: now }, { connection_count: -n }),
          ...IF_EXISTS,
        },
      }),
    ),
  ];
  return { steps, asRead: refsAsRead(entity) };
}
