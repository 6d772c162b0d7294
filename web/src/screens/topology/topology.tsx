import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type BlastRadius } from '../../api';
import { takeEarly, topologyKey } from '../../early';
import { readTopology } from '../../topology-read';
import { Alert, download, message, Page, useAction } from '../../ui';
import { BlastPanel } from './blast-panel';
import { type Drawing, drawing, fastFor, preloadDrawing, prepareDrawing } from './drawing-choice';
import { buildGraph, nodeId, sameShape, type TopologyData } from './graph';
import { layout } from './layout-in-worker';
import type { Engine } from './layout.worker';
import { edgesByEnds, marksOf } from './marks';
import { TopologyTools } from './topology-tools';
import type { TopologyView, ViewInput } from './view';
import { following, useLive } from '../../live';
import { applyChange, useLiveTopology } from './use-live-topology';

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

type Graph = ReturnType<typeof buildGraph>;
type Laid = Awaited<ReturnType<typeof layout>>;

/**
 * The screen's data in one request: GET /topology answers the environment's nodes and edges, compact
 * (started at start-up when the app opened on this address: early.ts).
 */
async function loadTopology(
  scope: { project_id: string; environment_id: string },
  signal: AbortSignal,
): Promise<TopologyData> {
  return takeEarly<TopologyData>(topologyKey(scope.project_id, scope.environment_id)) ?? readTopology(scope, signal);
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
  /** The last layout drawn: what it laid out, how, and how it was drawn. */
  const laidOut = useRef<{ graph: Graph; engine: Engine; choice: Drawing; answer: Laid }>(undefined);
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

  // 1. Data, read once the live feed (2b) follows the environment: no change made meanwhile is missed.
  useEffect(() => {
    const abort = new AbortController();
    const started = performance.now();
    setData(undefined);
    setError(undefined);
    // The fast drawing's code is fetched while the data is read, not after: the size that picks the
    // drawing is not known yet, and the environments where the wait counts are the big ones.
    preloadDrawing(true);
    following({ projectId: props.projectId, envId: props.envId })
      .then(() => loadTopology({ project_id: props.projectId, environment_id: props.envId }, abort.signal))
      .then(
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
    // A live change that moved nothing (a rename): the same layout, and the view where it was.
    const last = laidOut.current;
    const held = last && last.engine === engine && sameShape(last.graph, graph) ? last : undefined;
    const aspect = Math.max(0.5, (container.current?.clientWidth || 4) / (container.current?.clientHeight || 3));
    const laying = held ? Promise.resolve(held.answer) : layout(graph.nodes, graph.edges, engine, aspect);
    // The fast drawing is made while the worker lays out (all of it but the points).
    const prepared = prepareDrawing(choice, container.current!, graph).catch(() => undefined);
    laying.then(
      async (answer) => {
        // No drawing area (the screen is being replaced): Cytoscape takes a null container for a canvas and throws.
        const area = container.current;
        if (cancelled || !area) return void prepared.then((p) => p?.kill());
        const { positions, engine: used, ms } = answer;
        laidOut.current = { graph, engine, choice, answer };
        const drawStart = performance.now();
        const camera = held?.choice === choice ? view.current?.camera() : undefined;
        view.current?.destroy();
        view.current = undefined;
        const input: ViewInput = {
          container: area,
          graph,
          positions,
          onChoose: (id) => chooseService(id),
          start: focus ? nodeId('service', focus) : undefined,
        };
        const ready = await prepared;
        if (cancelled) return ready?.kill();
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
          ready,
        );
        if (cancelled) return drawn.view.destroy();
        if (camera) drawn.view.setCamera(camera);
        view.current = drawn.view;
        setFast(drawn.fast);
        setPartial(!!drawn.view.partial);
        setEngineUsed(`${used === 'elk' ? 'ELK layered' : 'fast layered'}, ${ms} ms`);
        setStatus('');
        setDrawn((d) => d + 1);
      },
      (err) => {
        void prepared.then((p) => p?.kill());
        if (!cancelled) setError(err);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [graph, engine, choice]);

  useEffect(() => () => view.current?.destroy(), []);

  // 2b. Live changes (the environment's live feed hands them to `applyChange`): applied to the data, drawn again;
  // when what was missed is no longer kept, the topology is read again.
  const reread = () => readTopology({ project_id: props.projectId, environment_id: props.envId });
  useLiveTopology(data, setData, reread);
  useLive({ projectId: props.projectId, envId: props.envId }, applyChange, () => void reread().then(setData, () => {}));

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
  const label = graph
    ? `Topology: ${graph.nodes.filter((n) => n.kind === 'service').length} services, ${graph.nodes.filter((n) => n.kind === 'floor').length} servers, ${graph.nodes.filter((n) => n.kind === 'network').length} networks, ${graph.edges.length} edges`
    : 'Topology';

  return (
    <Page title="Topology" wide>
      {error ? <Alert>{message(error)}</Alert> : null}
      <Alert>{exporter.error}</Alert>
      <div class="topology">
        <TopologyTools
          search={search}
          setSearch={setSearch}
          matches={matches}
          fitMatches={fitMatches}
          hiddenKinds={hiddenKinds}
          toggle={toggle}
          group={group}
          setGroup={setGroup}
          groups={groups}
          engine={engine}
          setEngine={setEngine}
          choice={choice}
          setChoice={setChoice}
          view={view}
          drawn={drawn}
          exporter={exporter}
          exportPicture={exportPicture}
          focus={focus}
          chooseService={chooseService}
          graph={graph}
        />
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
        <BlastPanel projectId={props.projectId} envId={props.envId} focus={focus} blast={blast} names={names} />
      </div>
    </Page>
  );
}
