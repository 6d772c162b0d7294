import { buildImportGraph, type Edge, type ImportGraph, type Unresolved } from './import-graph.ts';

/**
 * The architecture rules over the import graph. Each broken rule is one readable line:
 * `importing file → imported file: what is wrong`.
 *
 * 1. Contexts depend one way only (type-only imports included): a context may import only contexts on an earlier
 *    layer of CONTEXT_LAYERS. Contexts on the same layer may not import each other.
 * 2. Anything outside a context reaches it only through its `index.ts`, never a file behind it.
 * 3. `functions/**` (routes, handlers, workers) never imports `shared/db/**`: they go through the domain.
 * 4. `shared/domain/**` never imports `shared/http/**`: the domain does not know about HTTP.
 * 5. No import cycles, type-only edges included (`import type` is erased at run time, but a loop of types is still
 *    a loop of meaning: the two files cannot be read, moved or tested apart). A file inside a context importing its
 *    own context's `index.ts` is reported on its own as well: the index re-exports the file, so that is a cycle;
 *    siblings are imported directly.
 * 6. `shared/**` outside `shared/domain/` (context, auth, http, db, mail, …) imports no context, type-only or not:
 *    the contexts build on it, so it cannot build on them (what both need lives in a leaf, e.g. `shared/actor.ts`).
 * 7. `web/` and `clients/` are packages of their own: their files import their own package's files and npm packages,
 *    and the dashboard the client package (`@infracat/client`); never `shared/`, `functions/`, `infra/` or the other.
 *    Dependencies point one way: the service (`shared/`, `functions/`, `infra/`) imports nothing of `clients/` either
 *    (the plan rules the dashboard applies too are the service's `shared/domain/billing/plan-rules.ts`, copied into the
 *    package by its `npm run generate`).
 * 8. `infra/deployed/` serves the product from the synthesized template alone: besides its own files and npm
 *    packages it imports only the emulators' plumbing it shares with `npm start`, the route matcher and the fault
 *    rules (DEPLOYED_MAY_IMPORT), never the functions, the domain, the stack's code or the configuration.
 * 9. No two folders import each other, nor close a loop through other entries, type-only imports included. Within
 *    one folder, its entries (a file, or a subfolder with everything under it) depend one way: an import between two
 *    files is an arrow between the entries of their nearest common folder that hold them, and a loop of such arrows
 *    with a folder in it is reported, with one import for each arrow (a loop of files alone is an import cycle, rule
 *    5). What both sides need moves to the side it belongs to, or into a leaf beside them.
 * Domain files must sit in a known context folder, so that a new context cannot slip past rules 1 and 2.
 */

export const DOMAIN_DIR = 'shared/domain';

/** Bottom layer first: a context may import the contexts of any earlier layer. */
export const CONTEXT_LAYERS: readonly (readonly string[])[] = [
  ['identity'],
  ['billing'],
  ['tenancy'],
  ['catalog'],
  ['impex', 'discovery', 'webhooks', 'lifecycle', 'audit', 'live'],
  ['sso'],
];

const layerOf = new Map(CONTEXT_LAYERS.flatMap((names, layer) => names.map((name) => [name, layer] as const)));

/** The context a file belongs to: the first folder under shared/domain. `''` for a file directly in shared/domain. */
export function contextOf(file: string): string | undefined {
  if (!file.startsWith(`${DOMAIN_DIR}/`)) return undefined;
  const rest = file.slice(DOMAIN_DIR.length + 1).split('/');
  return rest.length > 1 ? rest[0] : '';
}

const indexOf = (context: string) => `${DOMAIN_DIR}/${context}/index.ts`;

export function violations(graph: ImportGraph): string[] {
  const fileProblems: string[] = [];
  for (const file of graph.files) {
    const context = contextOf(file);
    if (context === '') fileProblems.push(`${file}: domain code must sit inside a context folder`);
    else if (context !== undefined && !layerOf.has(context))
      fileProblems.push(
        `${file}: ${context} is not a known context (add it to CONTEXT_LAYERS in test/architecture/rules.ts)`,
      );
  }

  const unresolved = graph.unresolved.map((u) => `${u.from}:${u.line} → '${u.specifier}': resolves to no file`);

  const edgeProblems = new Set<string>();
  const edges = [...graph.edges].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  for (const edge of edges)
    for (const problem of edgeViolations(edge)) edgeProblems.add(`${edge.from} → ${edge.to}: ${problem}`);

  const packageProblems = graph.packages.flatMap((p) =>
    packageViolations(p).map((problem) => `${p.from}:${p.line} → '${p.specifier}': ${problem}`),
  );

  return [
    ...fileProblems,
    ...unresolved,
    ...edgeProblems,
    ...packageProblems,
    ...cycles(graph.edges),
    ...folderLoops(graph.edges),
  ];
}

/** 9. The two entries of their nearest common folder that hold `from` and `to` (a folder's name ends in `/`), or none for one entry. */
function entriesOf(from: string, to: string): [string, string] | undefined {
  const a = from.split('/');
  const b = to.split('/');
  let i = 0;
  while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
  const entry = (parts: string[]) => parts.slice(0, i + 1).join('/') + (i + 1 < parts.length ? '/' : '');
  const [x, y] = [entry(a), entry(b)];
  return x === y ? undefined : [x, y];
}

/** 9. Loops among the entries of one folder with a folder in them (two folders, or a folder and a file beside it, …). */
function folderLoops(edges: readonly Edge[]): string[] {
  const arrows = new Map<string, Map<string, Edge>>();
  for (const e of [...edges].sort((p, q) => p.from.localeCompare(q.from) || p.to.localeCompare(q.to))) {
    const pair = entriesOf(e.from, e.to);
    if (!pair) continue;
    const out = arrows.get(pair[0]) ?? new Map<string, Edge>();
    arrows.set(pair[0], out);
    if (!out.has(pair[1])) out.set(pair[1], e);
  }
  const next = (entry: string) => [...(arrows.get(entry)?.keys() ?? [])].sort();
  const hop = (e: Edge) =>
    `${e.from} → ${e.to}${e.kind === 'static' ? '' : ` (${e.kind === 'type' ? 'type-only' : 'dynamic import()'})`}`;
  const found: string[] = [];
  for (const group of stronglyConnected([...arrows.keys()].sort(), next)) {
    if (group.length < 2 || !group.some((entry) => entry.endsWith('/'))) continue;
    const members = new Set(group);
    const loop = rotateToSmallest(shortestCycle(group[0], (entry) => next(entry).filter((n) => members.has(n)))!);
    const imports = loop.map((entry, i) => hop(arrows.get(entry)!.get(loop[(i + 1) % loop.length])!));
    found.push(`entries of one folder in a loop: ${[...loop, loop[0]].join(' → ')} (${imports.join('; ')})`);
  }
  return found;
}

function edgeViolations({ from, to }: Edge): string[] {
  const problems: string[] = [];
  const source = contextOf(from);
  const target = contextOf(to);

  // 1. Direction between contexts.
  if (source && target && source !== target) {
    const s = layerOf.get(source);
    const t = layerOf.get(target);
    if (s !== undefined && t !== undefined && t >= s) problems.push(`${source} may not import ${target}`);
  }
  // 2. Into a context only through its index.ts.
  if (target && source !== target && to !== indexOf(target))
    problems.push(`deep import into ${target}: import its index.ts instead`);
  // 3. Routes and handlers do not touch the database layer.
  if (from.startsWith('functions/') && to.startsWith('shared/db/'))
    problems.push('functions may not import shared/db (go through the domain)');
  // 4. The domain does not know about HTTP.
  if (source !== undefined && to.startsWith('shared/http/')) problems.push('domain code may not import shared/http');
  // 5. (part) A file importing its own context's index.
  if (source && source === target && to === indexOf(source) && from !== to)
    problems.push(`a file inside ${source} must import its siblings directly, not ${source}'s own index.ts`);
  // 6. Shared code outside the domain builds on no context.
  if (from.startsWith('shared/') && source === undefined && target !== undefined)
    problems.push(`shared code outside ${DOMAIN_DIR} may not import a context (${target || DOMAIN_DIR})`);
  // 7. The dashboard and the client stay inside their own package.
  const pkg = packageOf(from);
  if (pkg && !to.startsWith(`${pkg.dir}/`))
    problems.push(
      `${pkg.dir} is a package of its own: it may import only its own files, npm packages${pkg.client ? ' and @infracat/client' : ''}`,
    );
  if (!pkg && to.startsWith('clients/'))
    problems.push(
      'the service may not import the client package: dependencies point from the client to the API, never back',
    );
  // 8. The deployed shape runs the template's bundles, not the source.
  if (from.startsWith('infra/deployed/') && !to.startsWith('infra/deployed/') && !DEPLOYED_MAY_IMPORT.includes(to))
    problems.push(
      'infra/deployed serves the synthesized template alone: it may import only its own files and DEPLOYED_MAY_IMPORT',
    );
  return problems;
}

/**
 * 2. (tests) The tests that act as a user does (end-to-end files, their helpers, the benches) reach a context through
 * its index too. A unit, integration or deployed-shape test of one module of a context (the SSRF guard, the import's
 * comparison, the Stripe adapter) may import that module itself: it tests the module, not the context's surface.
 */
export const TESTS_THROUGH_INDEX = ['test/e2e', 'test/helpers', 'test/bench'];

export function deepImportsFromTests(root: string): string[] {
  return buildImportGraph(root, TESTS_THROUGH_INDEX)
    .edges.filter(({ to }) => contextOf(to) && to !== indexOf(contextOf(to)!))
    .map(
      ({ from, to, line }) => `${from}:${line} → ${to}: deep import into ${contextOf(to)}: import its index.ts instead`,
    );
}

/** 8. What start:deployed may import besides its own files: no code a function runs, but the fault rules its SQS stand-in applies as the local queues do. */
export const DEPLOYED_MAY_IMPORT = [
  'infra/local/dynamo.ts',
  'infra/local/s3.ts',
  'infra/local/ports.ts',
  'infra/local/http-io.ts',
  'infra/local/keep-alive.ts',
  'infra/local/api-event.ts',
  'infra/local/stop-on-signals.ts',
  'infra/local/idp.ts',
  'infra/local/dns-stand-in.ts',
  'infra/local/stream-shards.ts',
  'infra/local/upgraded-sockets.ts',
  'shared/http/router.ts',
  'shared/faults.ts',
];

/** 7. The separate packages of the repository, and whether each may use the client package. */
const PACKAGES = [
  { dir: 'web', client: true },
  { dir: 'clients', client: false },
];
const packageOf = (file: string) => PACKAGES.find((p) => file.startsWith(`${p.dir}/`));

/** 7. (part) Of the repository's own packages, only the dashboard imports one: the client. */
function packageViolations({ from, specifier }: Unresolved): string[] {
  const ownPackage = /^@infracat\/([^/]+)/.exec(specifier)?.[1];
  if (ownPackage === undefined) return [];
  const pkg = packageOf(from);
  if (pkg?.client && ownPackage === 'client') return [];
  return [
    `${pkg?.dir ?? from.split('/')[0]} may not import @infracat/${ownPackage}${pkg?.client ? ' (only @infracat/client)' : ''}`,
  ];
}

/** Which edge stands for a pair of files in a reported cycle: a static import, else a dynamic one, else a type-only one. */
const KIND_RANK: Record<Edge['kind'], number> = { static: 0, dynamic: 1, type: 2 };

/**
 * 5. Import cycles, every edge counted (type-only ones too). For every strongly connected group of files, the
 * shortest cycle through each of its files (so every file caught in a cycle shows up in at least one reported path),
 * each listed once; the hops that are a dynamic import() or type-only are named after it.
 */
function cycles(allEdges: readonly Edge[]): string[] {
  const linked = new Map<string, Map<string, Edge>>();
  for (const e of allEdges) {
    const out = linked.get(e.from) ?? new Map<string, Edge>();
    linked.set(e.from, out);
    const known = out.get(e.to);
    if (!known || KIND_RANK[e.kind] < KIND_RANK[known.kind]) out.set(e.to, e);
  }
  const next = (f: string) => [...(linked.get(f)?.keys() ?? [])].sort();

  const reported: string[] = [];
  const seen = new Set<string>();
  for (const group of stronglyConnected([...linked.keys()].sort(), next)) {
    const members = new Set(group);
    const selfLoop = group.length === 1 && linked.get(group[0])?.has(group[0]);
    if (group.length < 2 && !selfLoop) continue;
    for (const start of [...group].sort()) {
      const path = shortestCycle(start, (f) => next(f).filter((g) => members.has(g)));
      if (!path) continue;
      const canonical = rotateToSmallest(path);
      const key = canonical.join('\n');
      if (seen.has(key)) continue;
      seen.add(key);
      const hops = canonical.map((f, i) => [f, canonical[(i + 1) % canonical.length]] as const);
      const hopsOf = (kind: Edge['kind']) =>
        hops.filter(([a, b]) => linked.get(a)?.get(b)?.kind === kind).map(([a, b]) => `${a} → ${b}`);
      const notes = [
        ['dynamic import()', hopsOf('dynamic')],
        ['type-only', hopsOf('type')],
      ]
        .filter(([, h]) => h.length)
        .map(([label, h]) => `${label}: ${(h as string[]).join(', ')}`);
      const note = notes.length ? ` (${notes.join('; ')})` : '';
      reported.push(`import cycle: ${[...canonical, canonical[0]].join(' → ')}${note}`);
    }
  }
  return reported;
}

/** Tarjan's algorithm, iterative. */
function stronglyConnected(nodes: readonly string[], next: (n: string) => string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: string; children: string[]; i: number }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: next(node), i: 0 });
    };
    enter(root);
    while (work.length) {
      const frame = work[work.length - 1];
      if (frame.i < frame.children.length) {
        const child = frame.children[frame.i++];
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        groups.push(group.sort());
      }
    }
  }
  return groups.sort((a, b) => a[0].localeCompare(b[0]));
}

/** Breadth-first: the shortest path start → … → start, without repeating start. */
function shortestCycle(start: string, next: (n: string) => string[]): string[] | undefined {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q];
    for (const child of next(node)) {
      if (child === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(parent.get(path[0])!);
        return path;
      }
      if (parent.has(child)) continue;
      parent.set(child, node);
      queue.push(child);
    }
  }
  return undefined;
}

function rotateToSmallest(path: string[]): string[] {
  let smallest = 0;
  for (let i = 1; i < path.length; i++) if (path[i] < path[smallest]) smallest = i;
  return [...path.slice(smallest), ...path.slice(0, smallest)];
}
