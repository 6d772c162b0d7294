import { keys } from '#db/keys';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment } from '#domain/tenancy';
import { connectionEntity, type Connection } from '../connection-entity.ts';
import { queryPrefix } from '#db/query';
import { visible, visibleFilter } from '#db/live';
import { ALL_CONNECTIONS, connectionListing, type ConnectionListing } from '../listings.ts';
import { MISSING_VIEW } from './limits-and-refusals.ts';

/**
 * GET /service-connections: an environment's connections, optionally touching one entity or of one
 * chain, in creation order. Read from their listings: the environment's range, or the
 * entity's own (only its connections), filtered on the chain, up to `offset + limit` (beyond SPEC;
 * without `limit` the whole list). A sync (`updated_since`, deleted ones too) reads them all.
 */
export async function listConnections(
  ctx: AppContext,
  query: {
    project_id: string;
    environment_id: string;
    entity_id?: string;
    chain_id?: string;
    updated_since?: string;
    offset?: number;
    limit?: number;
  },
): Promise<Connection[]> {
  const { project_id: projectId, environment_id: envId, offset = 0, limit } = query;
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    query.updated_since
      ? null
      : connectionListing.livePage<ConnectionListing>(projectId, envId, {
          offset,
          limit,
          place: query.entity_id ?? ALL_CONNECTIONS,
          keep: query.chain_id ? (l) => l.chain_id === query.chain_id : undefined,
        }),
  ]);
  access.require('connections.view', MISSING_VIEW, envId);
  if (page) return page;
  const all = (await queryPrefix(projectId, keys.connectionPrefix(envId), visibleFilter(query.updated_since))).map(
    connectionEntity.decode,
  );
  const matching = visible(all, query.updated_since)
    .filter((c) => !query.entity_id || c.a_id === query.entity_id || c.b_id === query.entity_id)
    .filter((c) => !query.chain_id || c.chain_id === query.chain_id)
    .sort(byConnectionOrder);
  return matching.slice(offset, limit === undefined ? undefined : offset + limit);
}

/**
 * Connections in the order they were made (a batch's in its order): how lists and chains show them.
 * Timestamps (ISO 8601, one form) and ids (UUIDs) compare as their characters do: the order a locale
 * comparison gives them, at a fraction of its cost (37,000 connections sorted for a topology).
 */
const byChars = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const byConnectionOrder = (
  a: Pick<Connection, 'created_at' | 'position' | 'id'>,
  b: Pick<Connection, 'created_at' | 'position' | 'id'>,
) => byChars(a.created_at, b.created_at) || (a.position ?? 0) - (b.position ?? 0) || byChars(a.id, b.id);
