import { keys } from '#db/keys';
import { retryWhenStale, transactWithCascade } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { auditSteps } from '#shared/audit';
import { retentionOfProject } from '#domain/tenancy';
import { edgeRemovalSteps } from '../items.ts';
import { serviceListing } from '../listings.ts';
import { whileLiveStep } from '#db/live';
import { counterStep } from '#db/steps';
import { FORBIDDEN_MANAGE, SERVICE_NOT_FOUND } from '../service-refusals.ts';
import { audited, serviceAudit, serviceEventData } from './audit-and-events.ts';
import { accessToService } from './read.ts';

/**
 * Soft-deletes a service and, in the same transaction, removes its connections and links and its
 * network attachments, and gives its slot back to the project's and environment's limits.
 */
export async function deleteService(ctx: AppContext, { service_id: serviceId }: { service_id: string }): Promise<void> {
  await retryWhenStale(async () => {
    // Read again on a retry: the listing removed is the one of the service as read (listing.ts).
    const { access, service, located } = await accessToService(serviceId, actorAccount(ctx).id, {
      key: 'services.manage',
      detail: FORBIDDEN_MANAGE,
    });
    const { projectId, envId } = located;
    const days = await retentionOfProject(access.project);
    const now = ctx.clock.now().toISOString();
    const audit = auditSteps(
      ctx,
      { ...serviceAudit(service, 'delete'), before: audited(service) },
      {
        mode: 'latest',
        days,
        previous: service.audit_head,
      },
    );
    const edges = await edgeRemovalSteps(projectId, envId, service, true, now);
    await transactWithCascade(edges.steps, [
      ...serviceListing.change(
        located.key,
        service,
        { deleted_at: now, updated_at: now, network_ids: [], audit_head: audit.sk },
        notFound(SERVICE_NOT_FOUND),
        edges.asRead,
      ),
      ...audit.steps,
      // Counted only while its environment is live: once the environment's delete has taken the
      // environment's whole count off the project, the service is gone with it (404) and nothing
      // is subtracted twice.
      counterStep(keys.project(projectId), { service_count: -1 }),
      whileLiveStep(
        counterStep(keys.environment(projectId, envId), { service_count: -1 }),
        notFound(SERVICE_NOT_FOUND),
      ),
      projectEventStep('service.deleted', projectId, serviceEventData(service), ctx),
    ]);
  });
}
