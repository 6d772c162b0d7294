import { describe, expect, it } from 'vitest';
import { fastLayered, type LayoutNode } from '../../web/src/screens/topology/fast-layout.ts';

/**
 * The dashboard's linear-time layered layout, the one the topology's worker uses for
 * environments too big for ELK (2,000 services and 6,000 connections).
 */
const node = (id: string, width = 100): LayoutNode => ({ id, width, height: 34 });

function randomGraph(n: number, m: number) {
  let seed = 7;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const nodes = Array.from({ length: n }, (_, i) => node(`n${i}`, 70 + Math.floor(rnd() * 150)));
  const edges = Array.from({ length: m }, () => ({
    source: `n${Math.floor(rnd() * n)}`,
    target: `n${Math.floor(rnd() * n)}`,
  }));
  return { nodes, edges };
}

describe('fastLayered', () => {
  it('puts every node of 2,000 nodes and 6,000 edges (cycles, self-loops, isolated nodes included) somewhere, no two overlapping', () => {
    const { nodes, edges } = randomGraph(2000, 6000);
    nodes.push(node('alone-1'), node('alone-2'));
    const positions = fastLayered(nodes, edges);
    expect(Object.keys(positions).sort()).toEqual(nodes.map((n) => n.id).sort());
    const boxes = nodes.map((n) => ({ ...positions[n.id], w: n.width, h: n.height }));
    for (const p of boxes) expect(Number.isFinite(p.x) && Number.isFinite(p.y)).toBe(true);
    const overlaps = (a: (typeof boxes)[number], b: (typeof boxes)[number]) =>
      Math.abs(a.x - b.x) * 2 < a.w + b.w && Math.abs(a.y - b.y) * 2 < a.h + b.h;
    let found = 0;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) if (overlaps(boxes[i], boxes[j])) found++;
    expect(found).toBe(0);
  });

  it('draws a chain left to right, and keeps a cycle to one pass', () => {
    const chain = fastLayered(
      [node('web'), node('api'), node('db')],
      [
        { source: 'web', target: 'api' },
        { source: 'api', target: 'db' },
      ],
    );
    expect(chain.web.x).toBeLessThan(chain.api.x);
    expect(chain.api.x).toBeLessThan(chain.db.x);
    const cycle = fastLayered(
      [node('a'), node('b'), node('c')],
      [
        { source: 'a', target: 'b' },
        { source: 'b', target: 'c' },
        { source: 'c', target: 'a' },
      ],
    );
    expect(new Set(Object.values(cycle).map((p) => p.x)).size).toBe(3);
  });

  it('wraps a long run of layers into bands under one another, about as wide as a screen, instead of a strip', () => {
    // A chain of 600 services: 600 layers, which unwrapped would be a strip ~100,000 px long.
    const nodes = Array.from({ length: 600 }, (_, i) => node(`s${i}`));
    const positions = fastLayered(
      nodes,
      nodes.slice(1).map((n, i) => ({ source: nodes[i].id, target: n.id })),
    );
    const xs = Object.values(positions).map((p) => p.x);
    const ys = Object.values(positions).map((p) => p.y);
    const width = Math.max(...xs) - Math.min(...xs);
    const height = Math.max(...ys) - Math.min(...ys);
    expect(width / height).toBeGreaterThan(1);
    expect(width / height).toBeLessThan(3);
    // Within a band the chain still runs left to right; the next band starts below.
    expect(positions.s0.x).toBeLessThan(positions.s1.x);
    const firstWrap = nodes.findIndex((n, i) => i > 0 && positions[n.id].y > positions[nodes[i - 1].id].y);
    expect(firstWrap).toBeGreaterThan(1);
    expect(positions[`s${firstWrap}`].x).toBeLessThan(positions[`s${firstWrap - 1}`].x);
  });

  it('puts nodes without any edge in a grid below the layers', () => {
    const positions = fastLayered([node('a'), node('b'), node('x'), node('y')], [{ source: 'a', target: 'b' }]);
    expect(positions.x.y).toBeGreaterThan(positions.a.y);
    expect(positions.y.y).toBeGreaterThanOrEqual(positions.x.y);
  });
});
