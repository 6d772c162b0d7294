import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToItem, type ItemRequest, type Located } from '#domain/tenancy';
import { serviceEntity, serviceView, type RepositoryDep, type Service, type ServiceOut } from '../service-entity.ts';
import type { Key } from '#db/lookup';
import { keyId } from '#db/batch-get';
import { FORBIDDEN_VIEW, SERVICE_NOT_FOUND } from '../service-refusals.ts';
import { resolveAll } from './references.ts';
import { hintedKeys } from './hints.ts';

/**
 * The caller's access to one service: locate, then one BatchGet with the service, its
 * environment and the hinted floor and groups. The service comes back decoded.
 */
export async function accessToService(
  serviceId: string,
  userId: string,
  permission: ItemRequest['permission'],
  more: (l: Located) => Key[] = () => [],
) {
  let requested = new Set<string>();
  const { item, ...found } = await accessToItem<object>({
    id: serviceId,
    kind: 'service',
    userId,
    notFound: notFound(SERVICE_NOT_FOUND),
    permission,
    extra: (l) => {
      const extra = [...hintedKeys(l), ...more(l)];
      requested = new Set(extra.map(keyId));
      return extra;
    },
  });
  return { ...found, service: serviceEntity.decode(item), requested };
}

const VIEW = { key: 'services.view', detail: FORBIDDEN_VIEW } as const;

export async function getService(ctx: AppContext, { service_id }: { service_id: string }): Promise<ServiceOut> {
  const { access, service, requested } = await accessToService(service_id, actorAccount(ctx).id, VIEW);
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}

export async function repositoryDeps(
  ctx: AppContext,
  { service_id }: { service_id: string },
): Promise<RepositoryDep[]> {
  const { service } = await accessToService(service_id, actorAccount(ctx).id, VIEW);
  return service.repository_deps;
}

/** Services answered as their GET answers them (floor type and group names read from their items): one BatchGet. */
export async function servicesAnswered(services: Service[]): Promise<ServiceOut[]> {
  const resolved = await resolveAll(services, new Map(), new Set());
  return services.map((s, i) => serviceView.project(s, resolved[i]));
}
