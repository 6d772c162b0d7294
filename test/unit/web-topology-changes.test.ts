import { describe, expect, it } from 'vitest';
import { type TopologyData, TopologyModel } from '../../web/src/screens/topology/live-changes.ts';

/**
 * The topology screen's live changes: a change as the live stream carries it, applied to GET
 * /topology's data, gives the data GET /topology would answer after it.
 */
const data: TopologyData = {
  project_id: 'p',
  environment_id: 'e',
  nodes: {
    kind: ['service', 'service', 'floor', 'network'],
    id: ['api', 'db', 'vm', 'net'],
    name: ['api', 'db', 'vm-1', 'private'],
    group: ['backend', null, null, null],
    type: [null, null, 'vm', null],
    cidr: [null, null, null, '10.0.0.0/16'],
  },
  edges: {
    kind: ['connection', 'hosting', 'attachment'],
    source: [0, 1, 2],
    target: [1, 2, 3],
    direction: ['a_to_b', null, null],
    name: ['sql', null, null],
  },
};

/** The data as readable rows: nodes `kind:name`, edges `kind a→b`. */
function rows(t: TopologyData) {
  const label = (i: number) => `${t.nodes.kind[i]}:${t.nodes.name[i]}`;
  return {
    nodes: t.nodes.id.map((_, i) => `${label(i)}${t.nodes.group[i] ? ` (${t.nodes.group[i]})` : ''}`),
    edges: t.edges.kind.map((k, i) => `${k} ${label(t.edges.source[i])}→${label(t.edges.target[i])}`),
  };
}

describe('live changes applied to the topology', () => {
  it('a service created, renamed (keeping its group), hosted and attached; then deleted with its edges', () => {
    const model = new TopologyModel(data);
    expect(
      model.apply({
        kind: 'service',
        id: 'web',
        op: 'created',
        item: { name: 'web', service_floor_id: 'vm', network_ids: ['net'] },
      }),
    ).toBe(true);
    expect(model.apply({ kind: 'service', id: 'api', op: 'updated', item: { name: 'gateway', group_id: 'g1' } })).toBe(
      true,
    );
    expect(rows(model.toData())).toEqual({
      nodes: ['service:db', 'service:gateway (backend)', 'service:web', 'floor:vm-1', 'network:private'],
      edges: [
        'connection service:gateway→service:db',
        'hosting service:db→floor:vm-1',
        'hosting service:web→floor:vm-1',
        'attachment floor:vm-1→network:private',
        'attachment service:web→network:private',
      ],
    });
    expect(model.apply({ kind: 'service', id: 'db', op: 'deleted' })).toBe(true);
    expect(rows(model.toData()).edges).toEqual([
      'hosting service:web→floor:vm-1',
      'attachment floor:vm-1→network:private',
      'attachment service:web→network:private',
    ]);
  });

  it('connections and links: added, changed by id, deleted by id; one it never saw by id asks for a new read', () => {
    const model = new TopologyModel(data);
    const conn = { a_type: 'service', a_id: 'db', b_type: 'floor', b_id: 'vm', direction: 'both', name: null };
    expect(model.apply({ kind: 'connection', id: 'c2', op: 'created', item: conn })).toBe(true);
    expect(
      model.apply({ kind: 'link', id: 'l1', op: 'created', item: { from_service_id: 'api', to_service_id: 'db' } }),
    ).toBe(true);
    // The connection read with the topology (no id): the only one between its ends.
    expect(
      model.apply({
        kind: 'connection',
        id: 'c1',
        op: 'updated',
        item: { a_type: 'service', a_id: 'api', b_type: 'service', b_id: 'db', direction: 'none', name: 'tcp' },
      }),
    ).toBe(true);
    let t = model.toData();
    expect(rows(t).edges).toEqual([
      'connection service:api→service:db',
      'connection service:db→floor:vm-1',
      'link service:api→service:db',
      'hosting service:db→floor:vm-1',
      'attachment floor:vm-1→network:private',
    ]);
    expect(t.edges.name[0]).toBe('tcp');
    expect(t.edges.direction.slice(0, 2)).toEqual(['none', 'both']);
    expect(model.apply({ kind: 'connection', id: 'c2', op: 'deleted' })).toBe(true);
    expect(model.apply({ kind: 'link', id: 'l1', op: 'deleted' })).toBe(true);
    t = model.toData();
    expect(rows(t).edges).toEqual(rows(data).edges);
    expect(model.apply({ kind: 'link', id: 'never-seen', op: 'deleted' })).toBe(false);
  });

  it('servers and networks: renamed, deleted; a renamed group asks for a new read', () => {
    const model = new TopologyModel(data);
    expect(
      model.apply({
        kind: 'service_floor',
        id: 'vm',
        op: 'updated',
        item: { hostname: 'vm-2', type: 'vm', network_ids: [] },
      }),
    ).toBe(true);
    expect(model.apply({ kind: 'network', id: 'net', op: 'deleted' })).toBe(true);
    expect(rows(model.toData())).toEqual({
      nodes: ['service:api (backend)', 'service:db', 'floor:vm-2'],
      edges: ['connection service:api→service:db', 'hosting service:db→floor:vm-2'],
    });
    expect(model.apply({ kind: 'group', id: 'g1', op: 'updated', item: { name: 'platform' } })).toBe(false);
  });
});
