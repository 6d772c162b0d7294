import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type BlastRadius } from '../../api';
import { takeEarly, topologyKey } from '../../early';
import { to } from '../../links';
import { Alert, download, message, Page, useAction } from '../../ui';
import {
  buildGraph,
  nodeId,
  type EdgeKind,
  type GraphEdge,
  type GraphNode,
  type NodeKind,
  type TopologyData,
} from './graph';
import type { Engine, LayoutAnswer, LayoutRequest } from './layout.worker';
import type { Positions } from './fast-layout';
import { edgesByEnds, marksOf } from './marks';
import type { TopologyView, ViewInput } from './view';

/** Above this many elements the automatic choice is the fast (WebGL) drawing. */
const FAST_DRAWING_FROM = 1500;

const NODE_KINDS: [NodeKind, string][] = [
  ['service', 'Services'],
  ['floor', 'Servers'],
  ['network', 'Networks'],
];
const EDGE_KINDS: [EdgeKind, string][] = [
  ['connection', 'Connections'],
  ['link', 'Links'],
  ['hosting', 'Hosting'],
  ['attachment', 'Network attachments'],
];

type Drawing = 'auto' | 'detailed' | 'fast';

/** Timings of the last drawing, read by `npm run bench:web`. */
declare global {
  interface Window {
    __topology?: {
      nodes: number;
      edges: number;
      engine: string;
      loadMs: number;
      layoutMs: number;
      drawing?: string;
      drawMs: number;
      interactiveMs: number;
      dataAt: number;
      drawnAt: number;
    };
  }
}

/**
 * The screen's data in one request: GET /topology answers the environment's nodes and edges, compact
 * (started at start-up when the app opened on this address: early.ts).
 */
async function loadTopology(
  scope: { project_id: string; environment_id: string },
  signal: AbortSignal,
): Promise<TopologyData> {
  return (
    takeEarly<TopologyData>(topologyKey(scope.project_id, scope.environment_id)) ??
    ok(api.GET('/topology', { params: { query: scope }, signal }))
  );
}

const layoutWorker = () => new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
/** A worker started with the screen's code, so that its script is loaded while the data is read (the first layout takes it). */
let spare: Worker | undefined = layoutWorker();

function layout(
  nodes: GraphNode[],
  edges: GraphEdge[],
  engine: Engine,
  aspectRatio: number,
): Promise<Extract<LayoutAnswer, { positions: Positions }>> {
  return new Promise((resolve, reject) => {
    const worker = spare ?? layoutWorker();
    spare = undefined;
    worker.onmessage = (e: MessageEvent<LayoutAnswer>) => {
      worker.terminate();
      'error' in e.data ? reject(new Error(e.data.error)) : resolve(e.data);
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message || 'The layout worker failed'));
    };
    const request: LayoutRequest = {
      nodes: nodes.map(({ id, width, height }) => ({ id, width, height })),
      edges: edges.map(({ id, source, target }) => ({ id, source, target })),
      engine,
      aspectRatio,
    };
    worker.postMessage(request);
  });
}

/**
 * The drawing for this many items: the detailed one (Cytoscape: shapes, dashes, curves) up to
 * FAST_DRAWING_FROM elements, the fast one (sigma.js on WebGL) above, unless the person chose.
 * The WebGL one's SVG and PNG come from a detailed drawing made for the export.
 */
const fastFor = (choice: Drawing, graph: { nodes: unknown[]; edges: unknown[] }) =>
  choice === 'fast' || (choice === 'auto' && graph.nodes.length + graph.edges.length > FAST_DRAWING_FROM);
/** The drawing's code, asked for while the layout runs (`drawing` then finds it loaded). */
const preloadDrawing = (fast: boolean) =>
  void (fast ? import('./sigma-view') : import('./cytoscape-view')).catch(() => {});

async function drawing(
  choice: Drawing,
  input: ViewInput,
  marks: () => ReturnType<typeof marksOf>,
  onDrawn: () => void,
): Promise<{ view: TopologyView; fast: boolean }> {
  const fast = fastFor(choice, input.graph);
  if (fast) {
    const { sigmaView, webglAvailable } = await import('./sigma-view');
    if (webglAvailable()) {
      const view = sigmaView(input, async (format) =>
        (await import('./cytoscape-view')).pictureOf(input, marks(), format),
      );
      requestAnimationFrame(onDrawn);
      return { view, fast };
    }
  }
  const { cytoscapeView } = await import('./cytoscape-view');
  return { view: cytoscapeView(input, onDrawn), fast: false };
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
  const view = useRef<TopologyView | undefined>(undefined);
  const marks = useRef<ReturnType<typeof marksOf>>(undefined);
  const [status, setStatus] = useState('Loading the environment…');
  const [error, setError] = useState<unknown>();
  const [data, setData] = useState<TopologyData>();
  const [engineUsed, setEngineUsed] = useState<string>();
  const [engine, setEngine] = useState<Engine>('auto');
  const [choice, setChoice] = useState<Drawing>('auto');
  const [fast, setFast] = useState(false);
  const [partial, setPartial] = useState(false);
  const exporter = useAction();
  const [search, setSearch] = useState('');
  const [hiddenKinds, setHiddenKinds] = useState<Set<string>>(new Set());
  const [group, setGroup] = useState('');
  const [blast, setBlast] = useState<BlastRadius>();
  const [drawn, setDrawn] = useState(0);
  const focus = query.focus ?? '';

  const graph = useMemo(() => (data ? buildGraph(data) : undefined), [data]);
  const groups = useMemo(() => [...new Set((data?.nodes.group ?? []).filter((g): g is string => !!g))].sort(), [data]);
  const names = useMemo(() => new Map(graph?.nodes.map((n) => [n.id, n.label]) ?? []), [graph]);
  const ends = useMemo(() => edgesByEnds(graph?.edges ?? []), [graph]);

  // 1. Data.
  useEffect(() => {
    const abort = new AbortController();
    const started = performance.now();
    setData(undefined);
    setError(undefined);
    loadTopology({ project_id: props.projectId, environment_id: props.envId }, abort.signal).then(
      (d) => {
        if (abort.signal.aborted) return;
        window.__topology = {
          nodes: 0,
          edges: 0,
          engine: '',
          loadMs: Math.round(performance.now() - started),
          layoutMs: 0,
          drawMs: 0,
          interactiveMs: 0,
          dataAt: Date.now(),
          drawnAt: 0,
        };
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
    preloadDrawing(fastFor(choice, graph));
    layout(
      graph.nodes,
      graph.edges,
      engine,
      Math.max(0.5, (container.current?.clientWidth || 4) / (container.current?.clientHeight || 3)),
    ).then(
      async ({ positions, engine: used, ms }) => {
        if (cancelled) return;
        const drawStart = performance.now();
        view.current?.destroy();
        view.current = undefined;
        const input: ViewInput = {
          container: container.current!,
          graph,
          positions,
          onChoose: (id) => chooseService(id),
          start: focus ? nodeId('service', focus) : undefined,
        };
        const drawn = await drawing(
          choice,
          input,
          () => marks.current!,
          () => {
            const now = performance.now();
            window.__topology = {
              ...window.__topology!,
              drawing: choice,
              nodes: graph.nodes.length,
              edges: graph.edges.length,
              engine: used,
              layoutMs: Math.round(drawStart - started),
              drawMs: Math.round(now - drawStart),
              interactiveMs: Math.round(now - started),
              drawnAt: Date.now(),
            };
          },
        );
        if (cancelled) return drawn.view.destroy();
        view.current = drawn.view;
        setFast(drawn.fast);
        setPartial(!!drawn.view.partial);
        setEngineUsed(`${used === 'elk' ? 'ELK layered' : 'fast layered'}, ${ms} ms`);
        setStatus('');
        setDrawn((d) => d + 1);
      },
      (err) => !cancelled && setError(err),
    );
    return () => {
      cancelled = true;
    };
  }, [graph, engine, choice]);

  useEffect(() => () => view.current?.destroy(), []);

  const chooseService = (id: string) => {
    const params = new URLSearchParams(location.search);
    id ? params.set('focus', id) : params.delete('focus');
    route(`${path}${params.size ? `?${params}` : ''}`, true);
  };

  // 3. Blast radius of the chosen service, once there is a drawing to mark. A redraw (another layout
  // or drawing) keeps it: the marks below show it on the new view, with no flicker and no new request.
  const hasDrawing = drawn > 0;
  useEffect(() => {
    setBlast(undefined);
    if (!focus || !hasDrawing) return;
    const abort = new AbortController();
    ok(
      api.GET('/services/{service_id}/blast-radius', { params: { path: { service_id: focus } }, signal: abort.signal }),
    ).then(
      (b) => !abort.signal.aborted && setBlast(b),
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [focus, hasDrawing]);

  // 4. Marks: filters, search, blast radius.
  useEffect(() => {
    if (!graph || !view.current) return;
    marks.current = marksOf(graph, ends, { hiddenKinds, group, search, blast });
    view.current.show(marks.current);
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
  const fitMatches = () => view.current?.fit(matches.map((n) => n.id));
  const exportPicture = (format: 'svg' | 'png') =>
    exporter.act(async () => download(`topology.${format}`, await view.current!.picture(format)));
  const byDistance = useMemo(() => {
    const out = new Map<number, BlastRadius['affected']>();
    for (const a of blast?.affected ?? []) out.set(a.distance, [...(out.get(a.distance) ?? []), a]);
    return [...out.entries()].sort(([a], [b]) => a - b);
  }, [blast]);
  // Made once per data: the screen re-renders as the drawing arrives, and 2,000 options need not be diffed again.
  const serviceOptions = useMemo(
    () =>
      (graph?.nodes ?? [])
        .filter((n) => n.kind === 'service')
        .sort((a, b) => a.label.localeCompare(b.label))
        .slice(0, 2000)
        .map((n) => (
          <option key={n.ref} value={n.ref}>
            {n.label}
          </option>
        )),
    [graph],
  );
  const label = graph
    ? `Topology: ${graph.nodes.filter((n) => n.kind === 'service').length} services, ${graph.nodes.filter((n) => n.kind === 'floor').length} servers, ${graph.nodes.filter((n) => n.kind === 'network').length} networks, ${graph.edges.length} edges`
    : 'Topology';

  return (
    <Page title="Topology" wide>
      {error ? <Alert>{message(error)}</Alert> : null}
      <Alert>{exporter.error}</Alert>
      <div class="topology">
        <div class="topology-tools">
          <form
            role="search"
            aria-label="Search the topology"
            onSubmit={(e) => {
              e.preventDefault();
              fitMatches();
            }}
          >
            <label for="topology-search">Find</label>
            <input
              id="topology-search"
              type="search"
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
            <button type="submit">Show</button>
            {search.trim() && (
              <span class="muted" role="status">
                {matches.length} found
              </span>
            )}
          </form>
          <fieldset>
            <legend>Show</legend>
            {[...NODE_KINDS, ...EDGE_KINDS].map(([kind, text]) => (
              <label key={kind} class="check">
                <input type="checkbox" checked={!hiddenKinds.has(kind)} onChange={() => toggle(kind)} /> {text}
              </label>
            ))}
          </fieldset>
          <div class="tool-row">
            <label>
              Group{' '}
              <select value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
                <option value="">All groups</option>
                {groups.map((g) => (
                  <option key={g} value={g}>
                    {g}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Layout{' '}
              <select value={engine} onChange={(e) => setEngine(e.currentTarget.value as Engine)}>
                <option value="auto">Automatic</option>
                <option value="elk">ELK layered</option>
                <option value="fast">Fast layered</option>
              </select>
            </label>
            <label>
              Drawing{' '}
              <select value={choice} onChange={(e) => setChoice(e.currentTarget.value as Drawing)}>
                <option value="auto">Automatic</option>
                <option value="detailed">Detailed</option>
                <option value="fast">Fast (WebGL)</option>
              </select>
            </label>
          </div>
          <div class="tool-row" role="group" aria-label="View">
            <button type="button" onClick={() => view.current?.zoomBy(1.25)}>
              Zoom in
            </button>
            <button type="button" onClick={() => view.current?.zoomBy(0.8)}>
              Zoom out
            </button>
            <button type="button" onClick={() => view.current?.fit()}>
              Fit
            </button>
            <button type="button" disabled={!drawn || exporter.busy} onClick={() => exportPicture('svg')}>
              Export SVG
            </button>
            <button type="button" disabled={!drawn || exporter.busy} onClick={() => exportPicture('png')}>
              Export PNG
            </button>
            {exporter.busy && (
              <span class="muted" role="status">
                Drawing the picture…
              </span>
            )}
          </div>
          <label>
            Blast radius of{' '}
            <select value={focus} onChange={(e) => chooseService(e.currentTarget.value)}>
              <option value="">No service chosen</option>
              {serviceOptions}
            </select>
          </label>
        </div>
        <div class="topology-canvas">
          <div
            ref={container}
            class="cy"
            role="img"
            aria-label={label}
            data-drawn={drawn ? 'true' : 'false'}
            data-drawing={fast ? 'fast' : 'detailed'}
          />
          {status && (
            <p class="muted overlay" role="status">
              {status}
            </p>
          )}
          {engineUsed && (
            <p class="muted legend">
              Layout: {engineUsed}; {fast ? 'fast drawing (labels appear as you zoom in)' : 'detailed drawing'}.
              {partial ? ' Part of it is shown, at a size its labels can be read: Fit shows all of it.' : ''} Drag to
              pan, scroll or pinch to zoom; choose a service to see its blast radius.
            </p>
          )}
        </div>
        <aside class="blast" aria-labelledby="blast-title">
          <h2 id="blast-title">Blast radius</h2>
          {!focus && (
            <p class="muted">
              Choose a service (click it, or pick it above) to see what else is affected when it fails.
            </p>
          )}
          {focus && !blast && (
            <p class="muted" role="status">
              Reading the blast radius…
            </p>
          )}
          {blast && (
            <>
              <p>
                If <a href={to.service(props.projectId, props.envId, blast.origin.id)}>{blast.origin.name}</a> fails,{' '}
                <strong>{blast.affected.length}</strong> other {blast.affected.length === 1 ? 'item is' : 'items are'}{' '}
                affected{blast.truncated ? ' (and more beyond the depth limit)' : ''}.
              </p>
              <ol class="distances">
                {byDistance.map(([distance, list]) => (
                  <li key={distance}>
                    <span class={`swatch d${Math.min(distance, 3)}`} aria-hidden="true" />{' '}
                    <strong>Distance {distance}</strong>
                    <ul>
                      {list.map((a) => (
                        <li key={a.id} data-affected={a.name ?? a.id}>
                          {a.name ?? a.id}{' '}
                          <span class="muted">
                            via {a.path.map((p) => names.get(nodeId(p.type, p.id)) ?? p.id).join(' → ')}
                          </span>
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
