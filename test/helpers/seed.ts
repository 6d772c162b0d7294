import { randomUUID } from 'node:crypto';
import { keys } from '#db/keys';
import { counterStep } from '#db/steps';
import { transact, type TransactStep } from '#db/transact';
import {
  checkGateway,
  createFloorBody,
  createNetworkBody,
  createServiceBody,
  floorEntity,
  networkEntity,
  newFloorSteps,
  newNetworkSteps,
  newServiceSteps,
  serviceEntity,
  type Floor,
  type Network,
  type Service,
} from '#domain/catalog';

/**
 * Catalog items for a test about what reads them (pages, filters, counts), written as the create routes write
 * them: the body parsed by the route's schema, then the route's own step builders (`newServiceSteps`,
 * `newFloorSteps`, `newNetworkSteps`: the item, its id lookup, its listings and search entries, a network's name
 * claim), as many items per transaction as it holds. Not written: a create's event and audit entry (nobody reads
 * them here) and its reference checks (the test names what it made). About a fifth of the CPU of creating them
 * through the API (measured: 84 services, 1.0 against 5.6 CPU-s of DynamoDB Local and the test process). Each
 * answers the items as stored, in the order of its inputs.
 */

/** Items a transaction takes (DynamoDB's limit), less room for a chunk's counters. */
const ROOM = 100 - 2;

/** Writes each item's steps, whole items per transaction, with `alongside(n)` (n: the chunk's items) in each. */
async function inTransactions(perItem: TransactStep[][], alongside: (n: number) => TransactStep[] = () => []) {
  for (let i = 0; i < perItem.length; ) {
    const chunk: TransactStep[][] = [];
    let size = 0;
    while (i < perItem.length && (chunk.length === 0 || size + perItem[i].length <= ROOM)) {
      size += perItem[i].length;
      chunk.push(perItem[i++]);
    }
    await transact([...alongside(chunk.length), ...chunk.flat()]);
  }
}

const stamps = () => {
  const now = new Date().toISOString();
  return { id: randomUUID(), created_at: now, updated_at: now, custom_fields: {} };
};

/** Services, the project's and the environment's service counters moved as the create's transaction moves them. */
export async function seedServices(
  owner: { id: string },
  projectId: string,
  envId: string,
  inputs: Record<string, unknown>[],
): Promise<Service[]> {
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
    if (repository_deps) throw new Error('seedServices: no repository_deps; create such a service through the API');
    // The route's list fields: an absent list is stored empty.
    const lists = { tags: set.tags ?? [], links: set.links ?? [], repository_deps: [] };
    return serviceEntity.create({ ...set, ...lists, ...stamps(), owner_user_id: owner.id, project_id, environment_id });
  });
  await inTransactions(
    services.map((s) => newServiceSteps(s)),
    (n) => [
      counterStep(keys.project(projectId), { service_count: n }),
      counterStep(keys.environment(projectId, envId), { service_count: n }),
    ],
  );
  return services;
}

/** Servers (service floors). */
export async function seedFloors(
  projectId: string,
  envId: string,
  inputs: Record<string, unknown>[],
): Promise<Floor[]> {
  const floors = inputs.map((input) => {
    const {
      project_id,
      environment_id,
      custom_fields: _none,
      type,
      ...set
    } = createFloorBody().parse({
      ...input,
      project_id: projectId,
      environment_id: envId,
    });
    const lists = { tags: set.tags ?? [], ip_addresses: set.ip_addresses ?? [] };
    return floorEntity.create({ ...set, ...lists, ...stamps(), project_id, environment_id, floor_type: type });
  });
  await inTransactions(floors.map((f) => newFloorSteps(f)));
  return floors;
}

/** Networks (each name claimed in its environment, as the create claims it). */
export async function seedNetworks(
  projectId: string,
  envId: string,
  inputs: Record<string, unknown>[],
): Promise<Network[]> {
  const networks = inputs.map((input) => {
    const {
      project_id,
      environment_id,
      custom_fields: _none,
      ...set
    } = createNetworkBody().parse({
      ...input,
      project_id: projectId,
      environment_id: envId,
    });
    checkGateway(set.cidr, set.gateway ?? null);
    return networkEntity.create({ ...set, ...stamps(), project_id, environment_id });
  });
  await inTransactions(networks.map((n) => newNetworkSteps(n)));
  return networks;
}
