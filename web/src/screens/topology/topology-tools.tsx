import { useMemo } from 'preact/hooks';
import type { Drawing } from './drawing-choice';
import type { EdgeKind, GraphNode, NodeKind } from './graph';
import type { Engine } from './layout.worker';
import type { TopologyView } from './view';

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

/**
 * The topology's tools: find, show by kind, group, layout and drawing, zoom, fit and export, and the
 * service whose blast radius is shown.
 */
export function TopologyTools(props: {
  search: string;
  setSearch: (search: string) => void;
  matches: GraphNode[];
  fitMatches: () => void;
  hiddenKinds: Set<string>;
  toggle: (kind: string) => void;
  group: string;
  setGroup: (group: string) => void;
  groups: string[];
  engine: Engine;
  setEngine: (engine: Engine) => void;
  choice: Drawing;
  setChoice: (choice: Drawing) => void;
  view: { current: TopologyView | undefined };
  drawn: number;
  exporter: { busy: boolean };
  exportPicture: (format: 'svg' | 'png') => unknown;
  focus: string;
  chooseService: (id: string) => void;
  graph: { nodes: GraphNode[] } | undefined;
}) {
  const {
    search,
    setSearch,
    matches,
    fitMatches,
    hiddenKinds,
    toggle,
    group,
    setGroup,
    groups,
    engine,
    setEngine,
    choice,
    setChoice,
    view,
    drawn,
    exporter,
    exportPicture,
    focus,
    chooseService,
    graph,
  } = props;
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
  return (
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
        <input id="topology-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
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
  );
}
