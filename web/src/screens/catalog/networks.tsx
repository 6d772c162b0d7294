import { api, ok, type Network, type NetworkQuery } from '../../api';
import { numberOrNull } from '../../form-fields';
import { to } from '../../links';
import type { FilterSpec } from '../../table';
import { CatalogList, type Column } from './list';
import { CUSTOM_FILTER, customFilters } from '../../custom-fields';

type FilterKey = 'q' | 'vlan_id' | 'mask' | 'range' | 'cf';

/** SPEC's filters of GET /networks. */
const FILTERS: FilterSpec<FilterKey>[] = [
  { key: 'q', label: 'Search (name, CIDR, gateway, VLAN)' },
  { key: 'range', label: 'Inside range (CIDR)' },
  { key: 'mask', label: 'Prefix length (0–32)' },
  { key: 'vlan_id', label: 'VLAN id' },
  CUSTOM_FILTER,
];

const COLUMNS: Column<Network>[] = [
  ['CIDR', (n) => n.cidr],
  ['Gateway', (n) => n.gateway ?? ''],
  ['VLAN', (n) => n.vlan_id ?? ''],
  ['Private', (n) => (n.is_private ? 'yes' : 'no')],
  ['Description', (n) => n.description ?? ''],
];

/** An environment's networks. */
export function Networks(props: { projectId: string; envId: string }) {
  const load = (f: Record<FilterKey, string>, signal: AbortSignal) => {
    const query: NetworkQuery = { project_id: props.projectId, environment_id: props.envId };
    if (f.q.trim()) query.q = f.q.trim();
    if (f.range.trim()) query.range = f.range.trim();
    // Numbers as typed: the API's 422 says what is wrong with one that is not.
    if (f.mask.trim()) query.mask = numberOrNull(f.mask)!;
    if (f.vlan_id.trim()) query.vlan_id = numberOrNull(f.vlan_id)!;
    return ok(api.GET('/networks', { params: { query: { ...query, cf: customFilters(f.cf) } }, signal }));
  };
  return (
    <CatalogList
      live={{ scope: { projectId: props.projectId, envId: props.envId }, kind: 'network' }}
      title="Networks"
      noun={['network', 'networks']}
      newHref={to.newNetwork(props.projectId, props.envId)}
      newLabel="New network"
      filters={FILTERS}
      load={load}
      name={(n) => n.name}
      nameLabel="Name"
      columns={COLUMNS}
      custom={{ projectId: props.projectId, kind: 'network' }}
      href={(n) => to.network(props.projectId, props.envId, n.id)}
    />
  );
}
