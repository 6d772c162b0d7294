import { transact, retryWhenStale } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { auditSteps } from '#shared/audit';
import { retentionOfProject } from '#domain/tenancy';
import { serviceView, type Service, type ServiceOut } from '../service-entity.ts';
import { serviceListing } from '../listings.ts';
import { FORBIDDEN_MANAGE, SERVICE_NOT_FOUND } from '../service-refusals.ts';
import { storedFields, type UpdateServiceInput } from './input.ts';
import { keysToValidate, resolveAll, validateReferences } from './references.ts';
import { serviceHintsStep } from './hints.ts';
import { audited, serviceAudit, serviceEventData } from './audit-and-events.ts';
import { accessToService } from './read.ts';
import { catalogueUnchangedStep, readCatalogue, valuesForWrite } from '../custom-fields/catalogue.ts';

/**
 * Changes the given fields; unchanged values are no write and no event. A change of a listed field
 * also rewrites the service's listing item, on condition that the other listed fields are still as
 * read; a concurrent change of one re-runs the update from a new read.
 */
export const updateService = (
  ctx: AppContext,
  input: UpdateServiceInput & { service_id: string },
): Promise<ServiceOut> => retryWhenStale(() => updateServiceOnce(ctx, input));

async function updateServiceOnce(
  ctx: AppContext,
  { service_id: serviceId, ...input }: UpdateServiceInput & { service_id: string },
): Promise<ServiceOut> {
  const userId = actorAccount(ctx).id;
  const wanted = storedFields(input);
  const manage = { key: 'services.manage', detail: FORBIDDEN_MANAGE } as const;
  const {
    access,
    service: item,
    located,
    requested,
  } = await accessToService(serviceId, userId, manage, (l) => keysToValidate(l.projectId, l.envId, wanted));
  // Custom fields merge into the values held (null removes one), checked against the catalogue read now.
  const catalogue = input.custom_fields ? await readCatalogue(located.projectId) : undefined;
  if (catalogue)
    wanted.custom_fields = await valuesForWrite(catalogue, 'service', input.custom_fields, item.custom_fields);
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(item[k as keyof Service])),
  ) as Partial<Service>;
  let service = item;
  if (Object.keys(changes).length) {
    service = { ...item, ...changes, updated_at: ctx.clock.now().toISOString() };
    const guards = validateReferences(access, located.envId, changes, service);
    const moved = ['service_floor_id', 'group_id', 'subgroup_id'].some((k) => k in changes);
    const changed = Object.keys(changes);
    if ('service_floor_id' in changes) changed.push('type');
    const days = await retentionOfProject(access.project);
    const audit = auditSteps(
      ctx,
      { ...serviceAudit(service, 'update'), before: audited(item), after: audited(service) },
      {
        mode: 'latest',
        days,
        previous: item.audit_head,
      },
    );
    service.audit_head = audit.sk;
    await transact([
      ...serviceListing.change(
        located.key,
        item,
        { ...changes, updated_at: service.updated_at, audit_head: audit.sk },
        notFound(SERVICE_NOT_FOUND),
      ),
      ...audit.steps,
      ...(moved ? [serviceHintsStep(serviceId, service)] : []),
      ...guards,
      ...(catalogue ? [catalogueUnchangedStep(catalogue)] : []),
      projectEventStep('service.updated', service.project_id, { ...serviceEventData(service), changed }, ctx),
    ]);
  }
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}
