import { api, ok, type Floor, type FloorQuery } from '../../api';
import { listOf } from '../../form-fields';
import { to } from '../../links';
import type { FilterSpec } from '../../table';
import { CatalogList, type Column } from './list';
import { floorName, floorTypeLabel, FLOOR_TYPES, locationOf } from './names';
import { CUSTOM_FILTER, customFilters } from '../../custom-fields';

type FilterKey = 'hostname' | 'tags' | 'type' | 'location' | 'zone' | 'cf';

/** SPEC's filters of GET /service-floors. */
const FILTERS: FilterSpec<FilterKey>[] = [
  { key: 'hostname', label: 'Hostname contains' },
  { key: 'type', label: 'Type', options: [['', 'Any'], ...FLOOR_TYPES] },
  { key: 'tags', label: 'Tags (any of, comma-separated)' },
  { key: 'location', label: 'Location (provider, region, zone)' },
  { key: 'zone', label: 'Zone' },
  CUSTOM_FILTER,
];

const COLUMNS: Column<Floor>[] = [
  ['Type', (f) => floorTypeLabel(f.type)],
  ['Location', locationOf],
  ['IP address', (f) => f.ip_address ?? ''],
  ['CPU', (f) => f.cpu ?? ''],
  ['Memory (MB)', (f) => f.memory_mb ?? ''],
  ['Instances', (f) => f.instances ?? ''],
  ['Tags', (f) => f.tags.join(', ')],
];

/** An environment's servers (service floors). */
export function Servers(props: { projectId: string; envId: string }) {
  const load = (f: Record<FilterKey, string>, signal: AbortSignal) => {
    const query: FloorQuery = { project_id: props.projectId, environment_id: props.envId };
    if (f.hostname.trim()) query.hostname = f.hostname.trim();
    if (f.type) query.type = f.type as Floor['type'];
    if (listOf(f.tags).length) query.tags = listOf(f.tags);
    if (f.location.trim()) query.location = f.location.trim();
    if (f.zone.trim()) query.zone = f.zone.trim();
    return ok(api.GET('/service-floors', { params: { query: { ...query, cf: customFilters(f.cf) } }, signal }));
  };
  return (
    <CatalogList
      live={{ scope: { projectId: props.projectId, envId: props.envId }, kind: 'service_floor' }}
      title="Servers"
      noun={['server', 'servers']}
      newHref={to.newServer(props.projectId, props.envId)}
      newLabel="New server"
      filters={FILTERS}
      load={load}
      name={floorName}
      nameLabel="Hostname"
      columns={COLUMNS}
      custom={{ projectId: props.projectId, kind: 'service_floor' }}
      href={(f) => to.server(props.projectId, props.envId, f.id)}
    />
  );
}
