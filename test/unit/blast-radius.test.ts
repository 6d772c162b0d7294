import { describe, expect, it } from 'vitest';
import { impactGraph, computeBlastRadius, type Topology } from '#domain/catalog';

/** The impact graph keeps one neighbour entry per (from, to), however many parallel edges there are. */
const service = (id: string, name = id) => ({ id, name, service_floor_id: null, deleted_at: null });
const conn = (a: string, b: string, direction: 'a_to_b' | 'b_to_a' | 'both' | 'none') => ({
  a_type: 'service' as const,
  a_id: a,
  b_type: 'service' as const,
  b_id: b,
  direction,
  deleted_at: null,
});

describe('impactGraph (the blast radius adjacency)', () => {
  it('collapses 9,600 parallel edges between two services into one neighbour each way', () => {
    const t: Topology = {
      services: [service('a'), service('b'), service('c')],
      floors: [],
      connections: [...Array.from({ length: 9_600 }, () => conn('a', 'b', 'none')), conn('b', 'c', 'a_to_b')],
      links: [],
    };
    const { edges } = impactGraph(t);
    expect(edges.get('service#a')).toEqual([{ to: 'service#b', via: 'connection' }]);
    expect(edges.get('service#b')).toEqual([{ to: 'service#a', via: 'connection' }]);
    expect(edges.get('service#c')).toEqual([{ to: 'service#b', via: 'connection' }]);
    const radius = computeBlastRadius(t, { type: 'service', id: 'c' }, 10);
    expect(radius.affected.map((x) => [x.id, x.distance, x.via])).toEqual([
      ['b', 1, 'connection'],
      ['a', 2, 'connection'],
    ]);
  });

  it('keeps the first kind of a hop (link before connection before hosting) and sorts neighbours', () => {
    const t: Topology = {
      services: [service('x'), service('y'), { ...service('z'), service_floor_id: 'f' }],
      floors: [{ id: 'f', hostname: 'host', deleted_at: null }],
      connections: [
        conn('x', 'y', 'a_to_b'),
        { a_type: 'floor', a_id: 'f', b_type: 'service', b_id: 'z', direction: 'both', deleted_at: null },
      ],
      links: [{ from_service_id: 'x', to_service_id: 'y', deleted_at: null }],
    };
    const { edges } = impactGraph(t);
    expect(edges.get('service#y')).toEqual([{ to: 'service#x', via: 'link' }]);
    expect(edges.get('floor#f')).toEqual([{ to: 'service#z', via: 'connection' }]);
    expect(edges.get('service#z')).toEqual([{ to: 'floor#f', via: 'connection' }]);
  });
});
