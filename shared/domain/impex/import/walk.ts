import type { AppContext } from '#shared/context';
import { walkContext, type Sink, type WalkInput } from './walk-context.ts';
import { planGroups } from './phases/groups.ts';
import { planNetworks } from './phases/networks.ts';
import { planFloors } from './phases/floors.ts';
import { planServices } from './phases/services.ts';
import { planLinks } from './phases/links.ts';
import { planConnections } from './phases/connections.ts';

/**
 * Plans every entity of the document against the environment as read, in document order, phase
 * by phase (groups, networks, floors, services, links, connections). Deterministic for a given
 * document and environment, apart from the ids of new items (each walk makes its own, used
 * consistently within it): planning and applying walk it once each.
 */
export async function walk(input: WalkInput, ctx: AppContext, sink: Sink): Promise<void> {
  const w = walkContext(input, ctx, sink);
  const groups = await planGroups(w);
  const networks = await planNetworks(w);
  const floorId = await planFloors(w, networks);
  const serviceId = await planServices(w, groups, networks, floorId);
  await planLinks(w, serviceId);
  await planConnections(w, serviceId, floorId);
}
