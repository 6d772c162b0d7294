import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { MISSING_MANAGE, MISSING_VIEW } from './connections';
import { envLiveCheck, accessInEnvironment, accessToEnvItem } from '#domain/tenancy';
import { lookupStep } from '#db/lookup';
import { liveEntityChecks } from './ends';
import { claimNameStep, releaseNameStep, type NameScope } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { softDeleteStep, visible } from '#db/live';

/** A service-to-service edge: `from_service_id` depends on `to_service_id`. Field names are a contract (services delete links by them). */
export interface Link {
  id: string;
  project_id: string;
  environment_id: string;
  from_service_id: string;
  to_service_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export const LINK_NOT_FOUND = 'Link not found';
export const LINK_KIND = 'link';

/**
 * One live link per (from, to) in an environment, held by a sentinel written with the link (so two
 * concurrent creates cannot both win). A sentinel left behind when the services group deletes a
 * service's links is harmless: that service id never comes back.
 */
const pairScope = (projectId: string, envId: string): NameScope => ({ projectId, kind: 'LINK', scopeId: envId, takenDetail: 'Link already exists' });
const pairName = (l: Pick<Link, 'from_service_id' | 'to_service_id'>) => `${l.from_service_id}>${l.to_service_id}`;

export const toLinkOut = (l: Link) => ({
  id: l.id,
  project_id: l.project_id,
  environment_id: l.environment_id,
  from_service_id: l.from_service_id,
  to_service_id: l.to_service_id,
  created_at: l.created_at,
  updated_at: l.updated_at,
  deleted_at: l.deleted_at,
});

export async function createLink(
  userId: string,
  input: { project_id: string; environment_id: string; from_service_id: string; to_service_id: string },
  ctx: AppContext,
): Promise<Link> {
  const { project_id: projectId, environment_id: envId } = input;
  const { access } = await accessInEnvironment(projectId, userId, envId);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const now = ctx.clock.now().toISOString();
  const link: Link = { id: ctx.ids.newId(), project_id: projectId, environment_id: envId, from_service_id: input.from_service_id, to_service_id: input.to_service_id, created_at: now, updated_at: now, deleted_at: null };
  const key = keys.link(projectId, envId, link.id);
  await transact([
    envLiveCheck(projectId, envId),
    ...liveEntityChecks(projectId, envId, [{ type: 'service', id: link.from_service_id }, { type: 'service', id: link.to_service_id }]),
    claimNameStep(pairScope(projectId, envId), pairName(link), link.id),
    { Put: { Item: { ...key, type: 'link', ...link }, ConditionExpression: 'attribute_not_exists(PK)' } },
    lookupStep(link.id, projectId, key, LINK_KIND),
  ]);
  return link;
}

/** GET /service-links: the environment's edge list, optionally only the links touching one service. */
export async function listLinks(userId: string, query: { project_id: string; environment_id: string; service_id?: string; updated_since?: string }): Promise<Link[]> {
  const { access } = await accessInEnvironment(query.project_id, userId, query.environment_id);
  access.require('connections.view', MISSING_VIEW, query.environment_id);
  const all = await queryPrefix<Link>(query.project_id, keys.linkPrefix(query.environment_id));
  return visible(all, query.updated_since)
    .filter((l) => !query.service_id || l.from_service_id === query.service_id || l.to_service_id === query.service_id)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** Soft delete; the pair may be linked again afterwards. */
export async function deleteLink(userId: string, id: string, ctx: AppContext): Promise<void> {
  const { access, item: link } = await accessToEnvItem<Link>(id, LINK_KIND, userId, notFound(LINK_NOT_FOUND));
  access.require('connections.manage', MISSING_MANAGE, link.environment_id);
  const now = ctx.clock.now().toISOString();
  await transact([
    softDeleteStep(keys.link(link.project_id, link.environment_id, link.id), now, notFound(LINK_NOT_FOUND)),
    releaseNameStep(pairScope(link.project_id, link.environment_id), pairName(link)),
  ]);
}
