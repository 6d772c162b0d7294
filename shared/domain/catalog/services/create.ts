import { keys } from '#db/keys';
import { transact, concurrentChange, retryWhenStale } from '#db/transact';
import { invalid } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { auditSteps } from '#shared/audit';
import { planOfProject, accessInEnvironment, ENV_NOT_IN_PROJECT, serviceQuotaAddon } from '#domain/tenancy';
import { serviceEntity, serviceView, type ServiceOut } from '../service-entity.ts';
import { keyId } from '#db/batch-get';
import { whileLiveStep, isLive } from '#db/live';
import { getItem } from '#db/items';
import { takeQuotaStep, SERVICES_QUOTA, quotaLimit } from '#domain/billing';
import { FORBIDDEN_CREATE } from '../service-refusals.ts';
import { storedFields, type CreateServiceInput } from './input.ts';
import { keysToValidate, resolveAll, validateReferences } from './references.ts';
import { newServiceSteps } from './hints.ts';
import { audited, serviceAudit, serviceEventData } from './audit-and-events.ts';
import { catalogueUnchangedStep, readCatalogue, valuesForWrite } from '../custom-fields/catalogue.ts';

/**
 * Creates a service. Refusals in SPEC's order: 404 'Project not found', 400 environment not in
 * the project, 403 permission, then 400 for references, then 403 service limit. The limit is
 * enforced per project and per environment by counters in the creating transaction, so
 * concurrent creates can never exceed it. Re-run from a new read when a definition changed under it
 * (its values hold on the catalogue's version).
 */
export const createService = (ctx: AppContext, input: CreateServiceInput): Promise<ServiceOut> =>
  retryWhenStale(() => createServiceOnce(ctx, input));

async function createServiceOnce(ctx: AppContext, input: CreateServiceInput): Promise<ServiceOut> {
  const userId = actorAccount(ctx).id;
  const set = storedFields(input);
  const [{ access, env }, catalogue] = await Promise.all([
    accessInEnvironment(
      input.project_id,
      userId,
      input.environment_id,
      keysToValidate(input.project_id, input.environment_id, set),
    ),
    readCatalogue(input.project_id),
  ]);
  access.require('services.manage', FORBIDDEN_CREATE, env.id);
  const customFields = await valuesForWrite(catalogue, 'service', input.custom_fields);
  const now = ctx.clock.now().toISOString();
  const service = serviceEntity.create({
    ...set,
    id: ctx.ids.newId(),
    name: input.name,
    owner_user_id: userId,
    project_id: env.project_id,
    environment_id: env.id,
    custom_fields: customFields,
    created_at: now,
    updated_at: now,
  });
  const guards = validateReferences(access, env.id, set, service);
  const plan = await planOfProject(access.project);
  const addon = serviceQuotaAddon(access.project);
  const envKey = keys.environment(service.project_id, service.environment_id);
  // The environment's counter moves only while the environment is live (one step: a transaction
  // touches an item once), so a create racing the environment's delete never leaves an invisible
  // service holding a slot. That step fails for either reason; a read tells which.
  const envStepFailed = concurrentChange();
  try {
    await transact([
      takeQuotaStep(keys.project(service.project_id), 'service_count', plan, SERVICES_QUOTA, addon),
      whileLiveStep(takeQuotaStep(envKey, 'service_count', plan, SERVICES_QUOTA, addon), envStepFailed),
      ...newServiceSteps(service),
      ...guards,
      catalogueUnchangedStep(catalogue),
      projectEventStep('service.created', service.project_id, serviceEventData(service), ctx),
      ...auditSteps(ctx, { ...serviceAudit(service, 'create'), after: audited(service) }, { mode: 'creation' }).steps,
    ]);
  } catch (err) {
    if (err !== envStepFailed) throw err;
    if (!isLive(await getItem(envKey))) throw invalid(ENV_NOT_IN_PROJECT);
    throw quotaLimit(plan, SERVICES_QUOTA, addon).refusal;
  }
  const requested = new Set(keysToValidate(service.project_id, service.environment_id, set).map(keyId));
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}
