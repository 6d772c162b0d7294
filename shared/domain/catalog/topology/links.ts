import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { MISSING_MANAGE, MISSING_VIEW } from './connections/index.ts';
import { envLiveCheck, accessInEnvironment, accessToItem, retentionOfProject } from '#domain/tenancy';
import { changeAudit, creationAudit } from '#shared/audit';
import { lookupStep } from '#db/lookup';
import { edgeEnds } from './ends.ts';
import { linkEntity, type Link } from './link-entity.ts';
import { claimNameStep, releaseNameStep, type NameScope } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { setFieldsStep, visible, visibleFilter } from '#db/live';
import { putNewStep } from '#db/steps';
import { linkListing } from './listings.ts';

/** Service-to-service edges (link-entity.ts): `from_service_id` depends on `to_service_id`. */

export const LINK_NOT_FOUND = 'Link not found';
export const LINK_KIND = 'link';

/**
 * One live link per (from, to) in an environment, held by a sentinel written with the link (so two
 * concurrent creates cannot both win). A sentinel left behind when the services group deletes a
 * service's links is harmless: that service id never comes back.
 */
const pairScope = (projectId: string, envId: string): NameScope => ({
  projectId,
  kind: 'LINK',
  scopeId: envId,
  takenDetail: 'Link already exists',
});
const pairName = (l: Pick<Link, 'from_service_id' | 'to_service_id'>) => `${l.from_service_id}>${l.to_service_id}`;

/** The writes that create a link (its pair claim, its item, its id lookup, its ends' listings); the end and environment guards are the caller's. */
export function newLinkSteps(link: Link): TransactStep[] {
  const key = keys.link(link.project_id, link.environment_id, link.id);
  return [
    claimNameStep(pairScope(link.project_id, link.environment_id), pairName(link), link.id),
    putNewStep(linkEntity.encode(key, link)),
    lookupStep(link.id, link.project_id, key, LINK_KIND),
    ...linkListing.steps(null, link),
  ];
}

/** What an audit entry records of a link: its fields as its readers see them. */
const auditedLink = ({ audit_head: _h, ...rest }: Link) => rest;

export async function createLink(
  ctx: AppContext,
  input: { project_id: string; environment_id: string; from_service_id: string; to_service_id: string },
): Promise<Link> {
  const { project_id: projectId, environment_id: envId } = input;
  const { access } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId);
  access.require('connections.manage', MISSING_MANAGE, envId);
  const now = ctx.clock.now().toISOString();
  const link = linkEntity.create({
    id: ctx.ids.newId(),
    project_id: projectId,
    environment_id: envId,
    from_service_id: input.from_service_id,
    to_service_id: input.to_service_id,
    created_at: now,
    updated_at: now,
  });
  await transact([
    envLiveCheck(projectId, envId),
    ...edgeEnds(projectId, envId, [
      { type: 'service', id: link.from_service_id },
      { type: 'service', id: link.to_service_id },
    ]),
    ...newLinkSteps(link),
    ...creationAudit(ctx, 'link', link, auditedLink(link)),
  ]);
  return link;
}

/**
 * GET /service-links: the environment's edge list in creation order, optionally only the links
 * touching one service. Those are read from the service's listing range (what it reads
 * grows with the service's links, not the environment's), alongside the access check; the whole
 * list and a sync (`updated_since`, deleted ones too) read the environment's links.
 */
export async function listLinks(
  ctx: AppContext,
  query: { project_id: string; environment_id: string; service_id?: string; updated_since?: string },
): Promise<Link[]> {
  const { project_id: projectId, environment_id: envId, service_id: serviceId } = query;
  const [{ access }, listed] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    serviceId && !query.updated_since ? linkListing.livePage(projectId, envId, { offset: 0, place: serviceId }) : null,
  ]);
  access.require('connections.view', MISSING_VIEW, envId);
  if (listed) return listed;
  const all = (await queryPrefix(projectId, keys.linkPrefix(envId), visibleFilter(query.updated_since))).map(
    linkEntity.decode,
  );
  return visible(all, query.updated_since)
    .filter((l) => !serviceId || l.from_service_id === serviceId || l.to_service_id === serviceId)
    .sort(byLinkOrder);
}

/** Links in the order they were made: created_at, then id (as their listings order them: both compare as their bytes do). */
export const byLinkOrder = (a: Pick<Link, 'created_at' | 'id'>, b: Pick<Link, 'created_at' | 'id'>) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Soft delete; the pair may be linked again afterwards. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteLink = (...args: Parameters<typeof deleteLinkOnce>) => retryWhenStale(() => deleteLinkOnce(...args));

async function deleteLinkOnce(ctx: AppContext, input: { link_id: string }): Promise<void> {
  const { access, item } = await accessToItem<Record<string, unknown>>({
    id: input.link_id,
    kind: LINK_KIND,
    userId: actorAccount(ctx).id,
    notFound: notFound(LINK_NOT_FOUND),
    permission: { key: 'connections.manage', detail: MISSING_MANAGE },
  });
  const link = linkEntity.decode(item);
  const now = ctx.clock.now().toISOString();
  const days = await retentionOfProject(access.project);
  const audit = changeAudit(ctx, 'link', 'delete', link, { before: auditedLink(link), after: null }, days);
  await transact([
    // The soft delete (the live rule's condition), with the link's latest audit entry.
    setFieldsStep(
      keys.link(link.project_id, link.environment_id, link.id),
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(LINK_NOT_FOUND),
    ),
    ...linkListing.steps(link, null),
    ...audit.steps,
    releaseNameStep(pairScope(link.project_id, link.environment_id), pairName(link)),
  ]);
}
