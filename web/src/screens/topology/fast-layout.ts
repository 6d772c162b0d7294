/**
 * A layered ("Sugiyama") layout in linear time per pass, for environments too big for ELK within the
 * topology's budget (ELK's layered algorithm takes tens of seconds on 2,000 nodes and 6,000 edges
 * here): cycles broken by a depth-first search, layers by longest path, order within each layer by a
 * few barycentre sweeps, tall layers wrapped into several columns, a long run of layers wrapped into
 * bands under one another, isolated nodes in a grid below.
 * Pure data in, positions out: it runs in the layout worker, and in unit tests.
 */

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}
export interface LayoutEdge {
  source: string;
  target: string;
}
/** Centre of each node, as Cytoscape positions nodes. */
export type Positions = Record<string, { x: number; y: number }>;

const GAP_X = 90;
const GAP_Y = 24;
const SWEEPS = 4;
/** Bands of layers, one under the other, for drawings wider than this (px) and than ASPECT times their height. */
const WRAP_ABOVE = 4000;
const ASPECT = 1.6;
const BAND_GAP = 120;

export function fastLayered(nodes: LayoutNode[], edges: LayoutEdge[]): Positions {
  const n = nodes.length;
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const out: number[][] = Array.from({ length: n }, () => []);
  const undirected: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    out[a].push(b);
    undirected[a].push(b);
    undirected[b].push(a);
  }

  // 1. Break cycles: drop the edges a depth-first search finds going back to a node on its stack.
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const forward: number[][] = Array.from({ length: n }, () => []);
  for (let root = 0; root < n; root++) {
    if (state[root]) continue;
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1]++;
        const w = out[v][i];
        if (state[w] === 0) {
          forward[v].push(w);
          state[w] = 1;
          stack.push([w, 0]);
        } else if (state[w] === 2) forward[v].push(w);
        // state 1: a back edge, left out of the layering
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }

  // 2. Layers by longest path from the sources (Kahn's order over the acyclic edges).
  const indegree = new Int32Array(n);
  for (let v = 0; v < n; v++) for (const w of forward[v]) indegree[w]++;
  const layer = new Int32Array(n);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (!indegree[v]) queue.push(v);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const w of forward[v]) {
      if (layer[v] + 1 > layer[w]) layer[w] = layer[v] + 1;
      if (--indegree[w] === 0) queue.push(w);
    }
  }

  // Isolated nodes (no edge at all) go to a grid of their own, under the layers.
  const isolated: number[] = [];
  const layers: number[][] = [];
  for (const v of queue) {
    if (!undirected[v].length) isolated.push(v);
    else (layers[layer[v]] ??= []).push(v);
  }

  // 3. Order within layers: barycentre of the neighbours' positions, sweeping down and up.
  const pos = new Float64Array(n);
  const place = (list: number[]) => {
    list.forEach((v, i) => {
      pos[v] = i;
    });
  };
  for (const list of layers) if (list) place(list);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const order = sweep % 2 === 0 ? layers : [...layers].reverse();
    for (const list of order) {
      if (!list) continue;
      const bary = new Map<number, number>();
      for (const v of list) {
        let sum = 0;
        let count = 0;
        for (const w of undirected[v]) if (layer[w] !== layer[v]) (sum += pos[w]), count++;
        bary.set(v, count ? sum / count : pos[v]);
      }
      list.sort((a, b) => bary.get(a)! - bary.get(b)!);
      place(list);
    }
  }

  // 4. Coordinates: a layer is a column (wrapped into several when taller than the drawing is wide);
  // a long run of layers is wrapped into bands, one under the other (as ELK's "graph wrapping" does), so
  // the drawing has about a screen's proportions instead of a strip hundreds of layers long: the whole
  // of it then fits the screen at a zoom where nodes are still seen, and edges stay short.
  const widest = Math.max(1, ...nodes.map((node) => node.width));
  const tallest = Math.max(1, ...nodes.map((node) => node.height));
  const linked = n - isolated.length;
  const maxRows = Math.max(8, Math.ceil(Math.sqrt(linked) * 1.6));
  const pitchX = widest + GAP_X / 3;
  const pitchY = tallest + GAP_Y;
  const blocks = layers.filter(Boolean).map((list) => {
    const columns = Math.ceil(list.length / maxRows);
    return { list, columns, rows: Math.ceil(list.length / columns), width: columns * pitchX };
  });
  const bands = (maxWidth: number) => {
    const out: { blocks: typeof blocks; width: number; height: number }[] = [];
    for (const block of blocks) {
      let band = out[out.length - 1];
      if (!band || (band.blocks.length && band.width + block.width > maxWidth))
        out.push((band = { blocks: [], width: 0, height: 0 }));
      band.blocks.push(block);
      band.width += block.width + GAP_X;
      band.height = Math.max(band.height, block.rows * pitchY);
    }
    const height = out.reduce((sum, band) => sum + band.height, 0) + (out.length - 1) * BAND_GAP;
    return { out, height };
  };
  const unwrapped = blocks.reduce((sum, block) => sum + block.width + GAP_X, 0);
  let maxWidth = unwrapped;
  if (unwrapped > WRAP_ABOVE && unwrapped > ASPECT * bands(unwrapped).height) {
    // The narrowest band width whose drawing is still at least ASPECT times as wide as it is tall.
    let low = Math.max(...blocks.map((block) => block.width + GAP_X));
    let high = unwrapped;
    for (let i = 0; i < 40 && high - low > pitchX; i++) {
      const mid = (low + high) / 2;
      if (mid >= ASPECT * bands(mid).height) high = mid;
      else low = mid;
    }
    maxWidth = high;
  }
  const positions: Positions = {};
  let top = 0;
  for (const band of bands(maxWidth).out) {
    let x = 0;
    for (const { list, rows } of band.blocks) {
      list.forEach((v, i) => {
        positions[nodes[v].id] = {
          x: x + Math.floor(i / rows) * pitchX + widest / 2,
          y: top + (i % rows) * pitchY + tallest / 2,
        };
      });
      x += Math.ceil(list.length / rows) * pitchX + GAP_X;
    }
    top += band.height + BAND_GAP;
  }
  const bottom = Math.max(0, top - BAND_GAP);
  const perRow = Math.max(1, Math.ceil(Math.sqrt(isolated.length * 3)));
  const gridTop = bottom + (linked ? tallest * 2 : 0);
  isolated.forEach((v, i) => {
    positions[nodes[v].id] = {
      x: (i % perRow) * pitchX + widest / 2,
      y: gridTop + Math.floor(i / perRow) * pitchY + tallest / 2,
    };
  });
  return positions;
}
