import { randomUUID } from 'node:crypto';
import { keys } from '#db/keys';
import { counterStep } from '#db/steps';
import { transact } from '#db/transact';
import { createServiceBody, newServiceSteps, serviceEntity, type Service } from '#domain/catalog';

/** Services per transaction: each writes about 14 items (the item, its lookup, listing and search entries). */
const CHUNK = 6;

/**
 * Services for a test about what reads them (pages, filters, counts), written as POST /services writes them: the
 * body parsed by the route's schema, the item, its lookup, its listing and its search entries (`newServiceSteps`),
 * the project's and the environment's service counters moved by the same transaction, a chunk of them per
 * transaction. Not written: the create's event and audit entry (nobody reads them here), its reference checks (the
 * test names what it made). About a fifth of the CPU of creating them through the API (measured: 84 services, 1.0
 * against 5.6 CPU-s of DynamoDB Local and the test process). Answers the services as stored, in `inputs`' order.
 */
export async function seedServices(
  owner: { id: string },
  projectId: string,
  envId: string,
  inputs: Record<string, unknown>[],
): Promise<Service[]> {
  const now = new Date().toISOString();
  const services = inputs.map((input) => {
    const {
      project_id,
      environment_id,
      custom_fields: _none,
      repository_deps,
      ...set
    } = createServiceBody().parse({
      ...input,
      project_id: projectId,
      environment_id: envId,
    });
    if (repository_deps)
      throw new Error('seedServices: repository_deps are not seeded; create such a service through the API');
    return serviceEntity.create({
      ...set,
      // The route's list fields: an absent list is stored empty.
      tags: set.tags ?? [],
      links: set.links ?? [],
      repository_deps: [],
      id: randomUUID(),
      owner_user_id: owner.id,
      project_id,
      environment_id,
      custom_fields: {},
      created_at: now,
      updated_at: now,
    });
  });
  for (let i = 0; i < services.length; i += CHUNK) {
    const chunk = services.slice(i, i + CHUNK);
    await transact([
      counterStep(keys.project(projectId), { service_count: chunk.length }),
      counterStep(keys.environment(projectId, envId), { service_count: chunk.length }),
      ...chunk.flatMap((s) => newServiceSteps(s)),
    ]);
  }
  return services;
}
