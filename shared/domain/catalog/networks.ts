import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import { keys } from '#db/keys';
import { transact, retryWhenStale, type TransactStep } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { name as nameSchema } from '#shared/schemas';
import { actorAccount, type AppContext } from '#shared/context';
import { catalogLookupStep, containsCi } from './items.ts';
import { ipv4Address, ipv4Cidr, optionalText } from './fields.ts';
import { networkEntity, type Network } from './network-entity.ts';
import { claimNameStep, releaseNameStep, renameSteps, type NameScope } from '#db/unique-names';
import { queryPrefix } from '#db/query';
import { accessInEnvironment, accessToItem, envLiveCheck, retentionOfProject, type ItemRequest } from '#domain/tenancy';
import { changeAudit, creationAudit } from '#shared/audit';
import { byText } from '#shared/text';
import { batchGet } from '#db/batch-get';
import { visible, liveItem, visibleFilter } from '#db/live';
import { networkListing, type NetworkListing } from './listings.ts';
import { putNewStep } from '#db/steps';
import { lazySchema } from '#shared/lazy-schema';
import { matchesCustomFilters } from './custom-fields/values.ts';
import { catalogueUnchangedStep, customFieldsInput, readCatalogue, valuesForWrite } from './custom-fields/catalogue.ts';

/** Networks: IPv4 networks of an environment, which services and floors attach to (attachments.ts). */

export const NETWORK_NOT_FOUND = 'Network not found';
const FORBIDDEN_CREATE = 'Insufficient permissions to create network in this environment';
const FORBIDDEN_MANAGE = 'Insufficient permissions to manage networks in this environment';
const FORBIDDEN_VIEW = 'Insufficient permissions to view networks in this environment';

const vlanId = lazySchema(() => z.number().int().min(1).max(4094));
const networkFields = () => ({
  gateway: ipv4Address().nullish(),
  vlan_id: vlanId().nullish(),
  description: optionalText(1000),
  custom_fields: customFieldsInput(),
});
export const createNetworkBody = lazySchema(() =>
  z.object({
    project_id: z.uuid(),
    environment_id: z.uuid(),
    name: nameSchema(),
    cidr: ipv4Cidr(),
    is_private: z.boolean().default(true),
    ...networkFields(),
  }),
);
export const updateNetworkBody = lazySchema(() =>
  z.object({
    name: nameSchema().optional(),
    cidr: ipv4Cidr().optional(),
    is_private: z.boolean().optional(),
    ...networkFields(),
  }),
);
export type CreateNetworkInput = z.output<ReturnType<typeof createNetworkBody>>;
export type UpdateNetworkInput = z.output<ReturnType<typeof updateNetworkBody>>;

/** Network names are unique per environment (a name sentinel, ignoring case). */
export const networkNameScope = (projectId: string, envId: string): NameScope => ({
  projectId,
  kind: 'NETWORK',
  scopeId: envId,
  takenDetail: 'Network with this name already exists in this environment',
});

/**
 * A gateway must be a usable address of its network: inside it, and (for networks with host
 * addresses to spare, /30 and wider) neither the network nor the broadcast address. Checked on
 * the resulting values, so a PATCH of either field alone is checked against the other as stored.
 */
export function checkGateway(cidr: string, gateway: string | null) {
  if (!gateway) return;
  const [, bits] = ipaddr.IPv4.parseCIDR(cidr);
  const address = ipaddr.IPv4.parse(gateway);
  if (!address.match(ipaddr.IPv4.parseCIDR(cidr)))
    throw invalid(`Gateway ${gateway} is not inside the network ${cidr}`);
  const reserved = [
    ipaddr.IPv4.networkAddressFromCIDR(cidr).toString(),
    ipaddr.IPv4.broadcastAddressFromCIDR(cidr).toString(),
  ];
  if (bits <= 30 && reserved.includes(address.toString()))
    throw invalid(`Gateway ${gateway} is the network or broadcast address of ${cidr}`);
}

/** The writes that create a network (its name claim, its item, its id lookup); the environment guard is the caller's. */
export function newNetworkSteps(network: Network): TransactStep[] {
  const key = keys.network(network.project_id, network.environment_id, network.id);
  return [
    claimNameStep(networkNameScope(network.project_id, network.environment_id), network.name, network.id),
    putNewStep(networkEntity.encode(key, network)),
    catalogLookupStep(network.id, network.project_id, network.environment_id, key, 'network'),
    ...networkListing.steps(null, network),
  ];
}

/** What an audit entry records of a network: its fields as its readers see them. */
export const auditedNetwork = ({ audit_head: _h, ...rest }: Network) => rest;
export const createNetwork = (ctx: AppContext, i: CreateNetworkInput) => retryWhenStale(() => createOnce(ctx, i));
async function createOnce(ctx: AppContext, input: CreateNetworkInput): Promise<Network> {
  const [{ access, env }, catalogue] = await Promise.all([
    accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id),
    readCatalogue(input.project_id),
  ]);
  access.require('networks.manage', FORBIDDEN_CREATE, env.id);
  checkGateway(input.cidr, input.gateway ?? null);
  const customFields = await valuesForWrite(catalogue, 'network', input.custom_fields);
  const now = ctx.clock.now().toISOString();
  const network = networkEntity.create({
    id: ctx.ids.newId(),
    project_id: env.project_id,
    environment_id: env.id,
    name: input.name,
    cidr: input.cidr,
    gateway: input.gateway,
    vlan_id: input.vlan_id,
    is_private: input.is_private,
    description: input.description,
    custom_fields: customFields,
    created_at: now,
    updated_at: now,
  });
  await transact([
    ...newNetworkSteps(network),
    envLiveCheck(network.project_id, network.environment_id),
    catalogueUnchangedStep(catalogue),
    ...creationAudit(ctx, 'network', network, auditedNetwork(network)),
  ]);
  return network;
}

export interface NetworkFilters {
  q?: string;
  vlan_id?: number;
  mask?: number;
  range?: string;
  updated_since?: string;
  cf?: Record<string, string[]>; // `cf.<key>` filters: key → values (any)
  /** Beyond SPEC: one page of the list (the whole list without `limit`). */
  offset?: number;
  limit?: number;
}

/** What `q` searches: name, CIDR, gateway, VLAN id and the mask (as `/24` and as `255.255.255.0`). */
function searchable(n: NetworkListing): string[] {
  const bits = Number(n.cidr.split('/')[1]);
  return [
    n.name,
    n.cidr,
    n.gateway ?? '',
    n.vlan_id === null ? '' : String(n.vlan_id),
    `/${bits}`,
    ipaddr.IPv4.subnetMaskFromPrefixLength(bits).toString(),
  ];
}

/** Whether a network lies inside a CIDR range (its prefix at least as long, its address inside). */
function insideRange(n: NetworkListing, range: [ipaddr.IPv4, number]): boolean {
  const [address, bits] = ipaddr.IPv4.parseCIDR(n.cidr);
  return bits >= range[1] && address.match(range);
}

/** GET /networks's filters (SPEC "Networks") as one test of a network or its listing item. */
export function networkFilter(f: NetworkFilters): ((n: NetworkListing) => boolean) | undefined {
  if (!f.q && f.vlan_id === undefined && f.mask === undefined && !f.range && !f.cf) return undefined;
  const range = f.range ? ipaddr.IPv4.parseCIDR(f.range) : undefined;
  return (n) =>
    (!f.q || searchable(n).some((text) => containsCi(text, f.q!))) &&
    (f.vlan_id === undefined || n.vlan_id === f.vlan_id) &&
    (f.mask === undefined || Number(n.cidr.split('/')[1]) === f.mask) &&
    (!range || insideRange(n, range)) &&
    matchesCustomFilters(n.custom_fields, f.cf);
}

/**
 * An environment's networks, filtered, by name, from `offset` (the whole list without `limit`): the
 * access check alongside the Query of the environment's listing items in name order (listing.ts),
 * which stops once the page is full, then one BatchGet of the page's networks. With `updated_since`
 * (a sync, deleted ones included) the networks are read whole.
 */
export async function listNetworks(
  ctx: AppContext,
  query: { project_id: string; environment_id: string } & NetworkFilters,
): Promise<Network[]> {
  const { project_id: projectId, environment_id: envId, offset = 0, limit, ...f } = query;
  const keep = networkFilter(f);
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    f.updated_since ? null : networkListing.page<NetworkListing>(projectId, envId, { offset, limit, keep }),
  ]);
  access.require('networks.view', FORBIDDEN_VIEW, envId);
  if (page) return networkListing.entities(projectId, envId, page);
  return visible(
    (await queryPrefix(projectId, keys.networkPrefix(envId), visibleFilter(f.updated_since))).map(networkEntity.decode),
    f.updated_since,
  )
    .filter((n) => !keep || keep(n))
    .sort(byText((n) => n.name))
    .slice(offset, limit === undefined ? undefined : offset + limit);
}

const MANAGE = { key: 'networks.manage', detail: FORBIDDEN_MANAGE } as const;

/** The caller's access to one network (404 for an unknown, foreign or deleted one), the network decoded. */
async function accessToNetwork(ctx: AppContext, networkId: string, permission: ItemRequest['permission']) {
  const found = await accessToItem<Record<string, unknown>>({
    id: networkId,
    kind: 'network',
    userId: actorAccount(ctx).id,
    notFound: notFound(NETWORK_NOT_FOUND),
    permission,
  });
  return { ...found, item: networkEntity.decode(found.item) };
}

export async function getNetwork(ctx: AppContext, input: { network_id: string }): Promise<Network> {
  const { item } = await accessToNetwork(ctx, input.network_id, { key: 'networks.view', detail: FORBIDDEN_VIEW });
  return item;
}

/** Changes the given fields; a change of a listed field re-runs from a new read when another one changed meanwhile (listing.ts). */
export const updateNetwork = (ctx: AppContext, input: { network_id: string } & UpdateNetworkInput): Promise<Network> =>
  retryWhenStale(() => updateNetworkOnce(ctx, input));

async function updateNetworkOnce(
  ctx: AppContext,
  input: { network_id: string } & UpdateNetworkInput,
): Promise<Network> {
  const { network_id: networkId, custom_fields: givenValues, ...patch } = input;
  const { access, item, located } = await accessToNetwork(ctx, networkId, MANAGE);
  const wanted = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<Network>;
  const catalogue = givenValues ? await readCatalogue(item.project_id) : undefined;
  if (catalogue) wanted.custom_fields = await valuesForWrite(catalogue, 'network', givenValues, item.custom_fields);
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(item[k as keyof Network])),
  ) as Partial<Network>;
  if (!Object.keys(changes).length) return item;
  const updated: Network = { ...item, ...changes, updated_at: ctx.clock.now().toISOString() };
  checkGateway(updated.cidr, updated.gateway);
  const days = await retentionOfProject(access.project);
  const audit = changeAudit(
    ctx,
    'network',
    'update',
    item,
    { before: auditedNetwork(item), after: auditedNetwork(updated) },
    days,
  );
  await transact([
    ...networkListing.change(
      located.key,
      item,
      { ...changes, updated_at: updated.updated_at, audit_head: audit.head },
      notFound(NETWORK_NOT_FOUND),
    ),
    ...audit.steps,
    ...(catalogue ? [catalogueUnchangedStep(catalogue)] : []),
    ...(changes.name
      ? renameSteps(networkNameScope(item.project_id, item.environment_id), item.name, updated.name, item.id)
      : []),
  ]);
  return updated;
}

/**
 * Soft delete; the name is free again. Attachments are not rewritten here: every read of a
 * service's or floor's networks drops deleted networks, and the next replacement prunes the id.
 */
export const deleteNetwork = (ctx: AppContext, input: { network_id: string }): Promise<void> =>
  retryWhenStale(() => deleteNetworkOnce(ctx, input));

async function deleteNetworkOnce(ctx: AppContext, input: { network_id: string }): Promise<void> {
  const { access, item, located } = await accessToNetwork(ctx, input.network_id, MANAGE);
  const now = ctx.clock.now().toISOString();
  const days = await retentionOfProject(access.project);
  const audit = changeAudit(ctx, 'network', 'delete', item, { before: auditedNetwork(item), after: null }, days);
  await transact([
    // The soft delete (the live rule's condition), with the entity's latest audit entry.
    ...networkListing.change(
      located.key,
      item,
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(NETWORK_NOT_FOUND),
    ),
    releaseNameStep(networkNameScope(item.project_id, item.environment_id), item.name),
    ...audit.steps,
  ]);
}

/** The live networks among `ids` of one environment, by name (attachments read). */
export async function liveNetworks(projectId: string, envId: string, ids: string[]): Promise<Network[]> {
  if (!ids.length) return [];
  const networkKeys = ids.map((id) => keys.network(projectId, envId, id));
  const items = await batchGet(networkKeys);
  return networkKeys
    .map((k) => liveItem<Record<string, unknown>>(items, k))
    .filter((n) => n !== undefined)
    .map(networkEntity.decode)
    .sort(byText((n) => n.name));
}
