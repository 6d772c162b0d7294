import cytoscape from 'cytoscape';
type Core = cytoscape.Core;
type ElementDefinition = cytoscape.ElementDefinition;
type StylesheetJson = cytoscape.StylesheetJson;
import svgExport from 'cytoscape-svg';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allServices, api, ok, type BlastRadius } from '../../api';
import { attachedNetworkIds, type Holder } from '../../attachments';
import { to } from '../../links';
import { Alert, download, message, Page } from '../../ui';
import { buildGraph, nodeId, type EdgeKind, type GraphEdge, type GraphNode, type NodeKind, type TopologyData } from './graph';
import type { Engine, LayoutAnswer, LayoutRequest } from './layout.worker';
import type { Positions } from './fast-layout';

cytoscape.use(svgExport);

/*
 * Cytoscape adds a <style> element (`.__________cytoscape_container { position: relative }`) unless an
 * element with its id exists: the CSP refuses inline styles, so the rule is in styles.css and this
 * marker tells Cytoscape it is there.
 */
if (!document.getElementById('__________cytoscape_stylesheet')) {
  const marker = document.createElement('meta');
  marker.id = '__________cytoscape_stylesheet';
  marker.name = 'cytoscape-container-style';
  marker.content = 'in styles.css';
  document.head.append(marker);
}

/** Service attachments are read one service at a time: only for environments up to this many services. */
const SERVICE_ATTACHMENTS_MAX = 60;
/** Above this many elements the canvas drops edges while panning and draws straight edges (the budget of 2,000 services and 6,000 connections). */
const BIG = 1500;

const NODE_KINDS: [NodeKind, string][] = [['service', 'Services'], ['floor', 'Servers'], ['network', 'Networks']];
const EDGE_KINDS: [EdgeKind, string][] = [['connection', 'Connections'], ['link', 'Links'], ['hosting', 'Hosting'], ['attachment', 'Network attachments']];

/** Timings of the last drawing, read by `npm run bench:web`. */
declare global {
  interface Window {
    __topology?: { nodes: number; edges: number; engine: string; loadMs: number; layoutMs: number; createMs?: number; drawMs: number; interactiveMs: number };
  }
}

async function loadTopology(scope: { project_id: string; environment_id: string }, signal: AbortSignal): Promise<TopologyData> {
  const [services, floors, networks, connections, links] = await Promise.all([
    allServices(scope, undefined, signal),
    ok(api.GET('/service-floors', { params: { query: scope }, signal })),
    ok(api.GET('/networks', { params: { query: scope }, signal })),
    ok(api.GET('/service-connections', { params: { query: scope }, signal })),
    ok(api.GET('/service-links', { params: { query: scope }, signal })),
  ]);
  const attachments = new Map<string, string[]>();
  if (networks.length) {
    const holders: Holder[] = [
      ...floors.map((f): Holder => ({ kind: 'floor', id: f.id })),
      ...(services.length <= SERVICE_ATTACHMENTS_MAX ? services.map((s): Holder => ({ kind: 'service', id: s.id })) : []),
    ];
    for (const [holder, ids] of await attachedNetworkIds(holders, signal)) attachments.set(nodeId(holder.kind, holder.id), ids);
  }
  return { services, floors, networks, connections, links, attachments };
}

function layout(nodes: GraphNode[], edges: GraphEdge[], engine: Engine): Promise<Extract<LayoutAnswer, { positions: Positions }>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<LayoutAnswer>) => {
      worker.terminate();
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message || 'The layout worker failed'));
    };
    const request: LayoutRequest = { nodes: nodes.map(({ id, width, height }) => ({ id, width, height })), edges: edges.map(({ id, source, target }) => ({ id, source, target })), engine };
    worker.postMessage(request);
  });
}

/**
 * Big drawings (the budget's 2,000 services and 6,000 connections) start without labels and with plain
 * edges (Cytoscape's "haystack": no arrows, solid), which is what lets them appear within the budget
 * here; zoomed in, the nodes in view get their labels and the edges between them their arrows and
 * dashes (`detail`). Dashed or dotted lines over a whole drawing cost the most of all: the canvas
 * rasterizes every dash, even when the drawing is zoomed out to a fraction of a pixel per dash.
 */
function style(big: boolean): StylesheetJson {
  const label = { label: 'data(label)', 'font-size': 12, 'font-family': 'system-ui, sans-serif', 'text-valign': 'center', 'text-halign': 'center', color: '#1b1f24', 'min-zoomed-font-size': 8 } as const;
  return [
    { selector: 'node', style: { ...(big ? {} : label), width: 'data(width)', height: 'data(height)', shape: 'round-rectangle', 'background-color': '#dbe9f6', 'border-width': 1, 'border-color': '#1f4e79' } },
    ...(big ? [{ selector: 'node.detail', style: label }] : []),
    { selector: 'node[kind = "floor"]', style: { shape: 'rectangle', 'background-color': '#eceff1', 'border-color': '#57606a' } },
    { selector: 'node[kind = "network"]', style: { shape: 'barrel', 'background-color': '#e6f4ea', 'border-color': '#146c2e' } },
    { selector: 'edge', style: { width: 1.5, 'line-color': '#6e7781', 'target-arrow-color': '#6e7781', 'source-arrow-color': '#6e7781', 'curve-style': big ? 'haystack' : 'bezier', 'arrow-scale': 1.1 } },
    ...(big ? [{ selector: 'edge.detail', style: { 'curve-style': 'straight' as const } }] : []),
    { selector: `edge${big ? '.detail' : ''}[direction = "a_to_b"]`, style: { 'target-arrow-shape': 'triangle' } },
    { selector: `edge${big ? '.detail' : ''}[direction = "b_to_a"]`, style: { 'source-arrow-shape': 'triangle' } },
    { selector: `edge${big ? '.detail' : ''}[direction = "both"]`, style: { 'source-arrow-shape': 'triangle', 'target-arrow-shape': 'triangle' } },
    { selector: `edge${big ? '.detail' : ''}[kind = "link"]`, style: { 'line-style': 'dotted', 'target-arrow-shape': 'vee' } },
    { selector: 'edge[kind = "hosting"]', style: { 'line-color': '#8c959f' } },
    { selector: `edge${big ? '.detail' : ''}[kind = "hosting"]`, style: { 'line-style': 'dashed' } },
    { selector: 'edge[kind = "attachment"]', style: { 'line-color': '#3f9a5a' } },
    { selector: `edge${big ? '.detail' : ''}[kind = "attachment"]`, style: { 'line-style': 'dotted' } },
    { selector: '.hidden', style: { display: 'none' } },
    { selector: '.faded', style: { opacity: 0.2 } },
    { selector: 'node.match', style: { 'border-width': 4, 'border-color': '#0b5fff' } },
    { selector: 'node.origin', style: { 'background-color': '#a4161a', 'border-color': '#5c0b0e', color: '#ffffff', 'border-width': 3 } },
    { selector: 'node.d1', style: { 'background-color': '#f08c4a', 'border-color': '#8a3b0b', 'border-width': 2 } },
    { selector: 'node.d2', style: { 'background-color': '#f6c177', 'border-color': '#8a5a0b', 'border-width': 2 } },
    { selector: 'node.d3', style: { 'background-color': '#fbe3b5', 'border-color': '#8a6d0b', 'border-width': 2 } },
    { selector: 'edge.path', style: { width: 4, 'line-color': '#a4161a', 'target-arrow-color': '#a4161a', 'source-arrow-color': '#a4161a', 'z-index': 10 } },
  ];
}

/** Zoomed in on a big drawing: labels on the nodes in view, arrows on the edges between them (and off again elsewhere). */
function showDetailInView(g: Core) {
  let detailed = g.collection();
  let timer = 0;
  const update = () => {
    const zoom = g.zoom();
    const next = zoom < 0.45 ? g.collection() : g.nodes().filter((n) => {
      const { x1, x2, y1, y2 } = g.extent();
      const p = n.position();
      return p.x >= x1 && p.x <= x2 && p.y >= y1 && p.y <= y2;
    });
    const withEdges = next.length > 150 ? g.collection() : next.union(next.edgesWith(next));
    g.batch(() => {
      detailed.difference(withEdges).removeClass('detail');
      withEdges.difference(detailed).addClass('detail');
    });
    detailed = withEdges;
  };
  g.on('viewport', () => {
    clearTimeout(timer);
    timer = window.setTimeout(update, 120);
  });
}

/**
 * The environment as a picture: services, servers and networks, typed and directed connections, links,
 * hosting and attachments; laid out in a worker (ELK's layered algorithm, or a linear-time layered
 * layout for big environments), drawn by Cytoscape.js; pan and zoom, search, filters by kind and group;
 * a service chosen shows its blast radius (GET /services/{id}/blast-radius) by distance with its paths;
 * export as SVG and PNG.
 */
export function Topology(props: { projectId: string; envId: string }) {
  const { query, route, path } = useLocation();
  const container = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | undefined>(undefined);
  const [status, setStatus] = useState('Loading the environment…');
  const [error, setError] = useState<unknown>();
  const [data, setData] = useState<TopologyData>();
  const [engineUsed, setEngineUsed] = useState<string>();
  const [engine, setEngine] = useState<Engine>('auto');
  const [search, setSearch] = useState('');
  const [hiddenKinds, setHiddenKinds] = useState<Set<string>>(new Set());
  const [group, setGroup] = useState('');
  const [blast, setBlast] = useState<BlastRadius>();
  const [drawn, setDrawn] = useState(0);
  const focus = query.focus ?? '';

  const graph = useMemo(() => (data ? buildGraph(data) : undefined), [data]);
  const groups = useMemo(() => [...new Set((data?.services ?? []).map((s) => s.group_name).filter((g): g is string => !!g))].sort(), [data]);
  const names = useMemo(() => new Map(graph?.nodes.map((n) => [n.id, n.label]) ?? []), [graph]);

  // 1. Data.
  useEffect(() => {
    const abort = new AbortController();
    const started = performance.now();
    setData(undefined);
    setError(undefined);
    loadTopology({ project_id: props.projectId, environment_id: props.envId }, abort.signal).then(
      (d) => {
        if (abort.signal.aborted) return;
        window.__topology = { nodes: 0, edges: 0, engine: '', loadMs: Math.round(performance.now() - started), layoutMs: 0, drawMs: 0, interactiveMs: 0 };
        setData(d);
      },
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [props.projectId, props.envId]);

  // 2. Layout in the worker, then the drawing.
  useEffect(() => {
    if (!graph) return;
    let cancelled = false;
    const started = performance.now();
    setStatus(`Laying out ${graph.nodes.length} items and ${graph.edges.length} edges…`);
    layout(graph.nodes, graph.edges, engine).then(
      ({ positions, engine: used, ms }) => {
        if (cancelled) return;
        const drawStart = performance.now();
        const big = graph.nodes.length + graph.edges.length > BIG;
        const elements: ElementDefinition[] = [
          ...graph.nodes.map((n) => ({ group: 'nodes' as const, data: { ...n }, position: positions[n.id] ?? { x: 0, y: 0 } })),
          ...graph.edges.map((e) => ({ group: 'edges' as const, data: { ...e } })),
        ];
        cy.current?.destroy();
        cy.current = cytoscape({
          container: container.current!,
          elements,
          style: style(big),
          layout: { name: 'preset' },
          minZoom: 0.02,
          maxZoom: 4,
          wheelSensitivity: 0.3,
          boxSelectionEnabled: false,
          autoungrabify: big,
          hideEdgesOnViewport: big,
          textureOnViewport: big,
          pixelRatio: big ? 1 : 'auto',
        });
        const createdMs = Math.round(performance.now() - drawStart);
        if (big) showDetailInView(cy.current);
        cy.current.on('tap', 'node[kind = "service"]', (e) => chooseService(e.target.data('ref')));
        cy.current.on('tap', (e) => e.target === cy.current && chooseService(''));
        cy.current.one('render', () => {
          const now = performance.now();
          window.__topology = { ...window.__topology!, createMs: createdMs, nodes: graph.nodes.length, edges: graph.edges.length, engine: used, layoutMs: Math.round(drawStart - started), drawMs: Math.round(now - drawStart), interactiveMs: Math.round(now - started) };
        });
        setEngineUsed(`${used === 'elk' ? 'ELK layered' : 'fast layered'}, ${ms} ms`);
        setStatus('');
        setDrawn((d) => d + 1);
      },
      (err) => !cancelled && setError(err),
    );
    return () => {
      cancelled = true;
    };
  }, [graph, engine]);

  useEffect(() => () => cy.current?.destroy(), []);

  const chooseService = (id: string) => {
    const params = new URLSearchParams(location.search);
    id ? params.set('focus', id) : params.delete('focus');
    route(`${path}${params.size ? `?${params}` : ''}`, true);
  };

  // 3. Blast radius of the chosen service.
  useEffect(() => {
    setBlast(undefined);
    if (!focus || !drawn) return;
    const abort = new AbortController();
    ok(api.GET('/services/{service_id}/blast-radius', { params: { path: { service_id: focus } }, signal: abort.signal })).then(
      (b) => !abort.signal.aborted && setBlast(b),
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [focus, drawn]);

  // 4. Classes: filters, search, blast radius.
  useEffect(() => {
    const g = cy.current;
    if (!g) return;
    // Only what changes is restyled: on 9,000 elements a blanket class change costs seconds here.
    const marked = g.elements('.hidden, .faded, .match, .origin, .d1, .d2, .d3, .path');
    if (!marked.length && !hiddenKinds.size && !group && !search.trim() && !blast) return;
    g.batch(() => {
      marked.removeClass('hidden faded match origin d1 d2 d3 path');
      if (hiddenKinds.size || group) {
        g.nodes().filter((n) => hiddenKinds.has(n.data('kind')) || (!!group && n.data('kind') === 'service' && n.data('group') !== group)).addClass('hidden');
        g.edges().filter((e) => hiddenKinds.has(e.data('kind'))).addClass('hidden');
      }
      const term = search.trim().toLowerCase();
      if (term) g.nodes().filter((n) => String(n.data('label')).toLowerCase().includes(term)).addClass('match');
      if (blast) {
        const origin = g.getElementById(nodeId(blast.origin.type, blast.origin.id));
        g.elements().addClass('faded');
        origin.removeClass('faded').addClass('origin');
        for (const a of blast.affected) {
          g.getElementById(nodeId(a.type, a.id)).removeClass('faded').addClass(a.distance >= 3 ? 'd3' : `d${a.distance}`);
          for (let i = 1; i < a.path.length; i++) {
            const from = nodeId(a.path[i - 1].type, a.path[i - 1].id);
            const toNode = nodeId(a.path[i].type, a.path[i].id);
            g.edges(`[source = "${from}"][target = "${toNode}"], [source = "${toNode}"][target = "${from}"]`).removeClass('faded').addClass('path');
          }
        }
      }
    });
  }, [hiddenKinds, group, search, blast, drawn]);

  const matches = useMemo(() => {
    const term = search.trim().toLowerCase();
    return term && graph ? graph.nodes.filter((n) => n.label.toLowerCase().includes(term)) : [];
  }, [search, graph]);

  const toggle = (kind: string) => {
    const next = new Set(hiddenKinds);
    next.has(kind) ? next.delete(kind) : next.add(kind);
    setHiddenKinds(next);
  };
  const zoom = (factor: number) => {
    const g = cy.current;
    if (g) g.zoom({ level: g.zoom() * factor, renderedPosition: { x: g.width() / 2, y: g.height() / 2 } });
  };
  const fitMatches = () => {
    const g = cy.current;
    if (g) g.fit(matches.length ? g.nodes('.match') : undefined, 40);
  };
  const byDistance = useMemo(() => {
    const out = new Map<number, BlastRadius['affected']>();
    for (const a of blast?.affected ?? []) out.set(a.distance, [...(out.get(a.distance) ?? []), a]);
    return [...out.entries()].sort(([a], [b]) => a - b);
  }, [blast]);
  // Made once per data: the screen re-renders as the drawing arrives, and 2,000 options need not be diffed again.
  const serviceOptions = useMemo(() => [...(data?.services ?? [])].sort((a, b) => a.name.localeCompare(b.name)).slice(0, 2000).map((s) => <option key={s.id} value={s.id}>{s.name}</option>), [data]);
  const label = graph ? `Topology: ${graph.nodes.filter((n) => n.kind === 'service').length} services, ${graph.nodes.filter((n) => n.kind === 'floor').length} servers, ${graph.nodes.filter((n) => n.kind === 'network').length} networks, ${graph.edges.length} edges` : 'Topology';

  return (
    <Page title="Topology" wide>
      {error ? <Alert>{message(error)}</Alert> : null}
      <div class="topology">
        <div class="topology-tools">
          <form role="search" aria-label="Search the topology" onSubmit={(e) => { e.preventDefault(); fitMatches(); }}>
            <label for="topology-search">Find</label>
            <input id="topology-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
            <button type="submit">Show</button>
            {search.trim() && <span class="muted" role="status">{matches.length} found</span>}
          </form>
          <fieldset>
            <legend>Show</legend>
            {[...NODE_KINDS, ...EDGE_KINDS].map(([kind, text]) => (
              <label key={kind} class="check"><input type="checkbox" checked={!hiddenKinds.has(kind)} onChange={() => toggle(kind)} /> {text}</label>
            ))}
          </fieldset>
          <div class="tool-row">
            <label>Group <select value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
              <option value="">All groups</option>
              {groups.map((g) => <option key={g} value={g}>{g}</option>)}
            </select></label>
            <label>Layout <select value={engine} onChange={(e) => setEngine(e.currentTarget.value as Engine)}>
              <option value="auto">Automatic</option>
              <option value="elk">ELK layered</option>
              <option value="fast">Fast layered</option>
            </select></label>
          </div>
          <div class="tool-row" role="group" aria-label="View">
            <button type="button" onClick={() => zoom(1.25)}>Zoom in</button>
            <button type="button" onClick={() => zoom(0.8)}>Zoom out</button>
            <button type="button" onClick={() => cy.current?.fit(undefined, 30)}>Fit</button>
            <button type="button" disabled={!drawn} onClick={() => download('topology.svg', new Blob([cy.current!.svg({ full: true, bg: '#ffffff' })], { type: 'image/svg+xml' }))}>Export SVG</button>
            <button type="button" disabled={!drawn} onClick={() => download('topology.png', cy.current!.png({ full: true, bg: '#ffffff', output: 'blob', maxWidth: 8000, maxHeight: 8000 }))}>Export PNG</button>
          </div>
          <label>Blast radius of <select value={focus} onChange={(e) => chooseService(e.currentTarget.value)}>
            <option value="">No service chosen</option>
            {serviceOptions}
          </select></label>
        </div>
        <div class="topology-canvas">
          <div ref={container} class="cy" role="img" aria-label={label} data-drawn={drawn ? 'true' : 'false'} />
          {status && <p class="muted overlay" role="status">{status}</p>}
          {engineUsed && <p class="muted legend">Layout: {engineUsed}. Drag to pan, scroll or pinch to zoom; choose a service to see its blast radius.</p>}
        </div>
        <aside class="blast" aria-labelledby="blast-title">
          <h2 id="blast-title">Blast radius</h2>
          {!focus && <p class="muted">Choose a service (click it, or pick it above) to see what else is affected when it fails.</p>}
          {focus && !blast && <p class="muted" role="status">Reading the blast radius…</p>}
          {blast && (
            <>
              <p>
                If <a href={to.service(props.projectId, props.envId, blast.origin.id)}>{blast.origin.name}</a> fails,{' '}
                <strong>{blast.affected.length}</strong> other {blast.affected.length === 1 ? 'item is' : 'items are'} affected{blast.truncated ? ' (and more beyond the depth limit)' : ''}.
              </p>
              <ol class="distances">
                {byDistance.map(([distance, list]) => (
                  <li key={distance}>
                    <span class={`swatch d${Math.min(distance, 3)}`} aria-hidden="true" /> <strong>Distance {distance}</strong>
                    <ul>
                      {list.map((a) => (
                        <li key={a.id} data-affected={a.name ?? a.id}>
                          {a.name ?? a.id} <span class="muted">via {a.path.map((p) => names.get(nodeId(p.type, p.id)) ?? p.id).join(' → ')}</span>
                        </li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ol>
            </>
          )}
        </aside>
      </div>
    </Page>
  );
}
