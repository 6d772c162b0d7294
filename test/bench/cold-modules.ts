/**
 * Where a function's import spends its CPU, module by module: `npx tsx test/bench/cold-modules.ts
 * functions/impex/handler.ts [runs]`. The entry is bundled as deployed but not minified, a CPU-time mark is
 * put at each module's start (esbuild's `// path` comments) and around each lazily initialised module
 * (esbuild's `__esm`), and the median over `runs` fresh imports is printed per module, largest first. The
 * first module that builds a zod schema also pays zod's first use (its code compiled and warmed).
 * Beside `COLD_PROFILE=1 npm run bench:cold` (a CPU profile, which cannot split the bundle's top-level code).
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './deployed-bundle.ts';
import { DEPLOYED_BUILD } from './deployed-bundle.ts';
const [entry, runs = '5'] = process.argv.slice(2);
const out = join(ROOT, '.bench', `modules-${entry.replace(/\W/g, '_')}.mjs`);
await build({ ...DEPLOYED_BUILD, minify: false, sourcemap: false, entryPoints: [entry], outfile: out });
const lines = readFileSync(out, 'utf8').split('\n');
const res: string[] = [];
let first = true;
for (const l of lines) {
  const m = /^\/\/ (\S+)$/.exec(l);
  if (m && !first) res.push(`__mt(${JSON.stringify(m[1])});`);
  if (m && first) {
    res.push(
      `globalThis.__mtT = process.cpuUsage(); globalThis.__mtS = ["(start)"]; globalThis.__mtR = new Map(); function __mtc() { const u = process.cpuUsage(); const d = (u.user + u.system - globalThis.__mtT.user - globalThis.__mtT.system) / 1000; const L = globalThis.__mtS.at(-1); globalThis.__mtR.set(L, (globalThis.__mtR.get(L) ?? 0) + d); globalThis.__mtT = u; } function __mt(n) { __mtc(); globalThis.__mtS[0] = n; }`,
    );
    res.push(`__mt(${JSON.stringify(m[1])});`);
    first = false;
  }
  if (l.startsWith('var __esm = (fn, res, err) => function __init() {')) {
    res.push(
      'var __esm = (fn, res, err) => { const __name = Object.getOwnPropertyNames(fn)[0]; const inner = __esm0(fn, res, err); return function __init() { if (typeof __mtc !== "function") return inner(); __mtc(); globalThis.__mtS.push(__name + " (lazy)"); try { return inner(); } finally { __mtc(); globalThis.__mtS.pop(); } }; };',
    );
    res.push(l.replace('var __esm =', 'var __esm0 ='));
    continue;
  }
  res.push(l);
}
res.push('__mt("(end)");');
// hoisted imports: put the header after the import lines - imports are hoisted anyway in ESM, function decl hoisted too
writeFileSync(out, res.join('\n'));
const env = {
  ...process.env,
  AWS_REGION: 'us-east-1',
  STAGE: 'cloud',
  NODE_OPTIONS: '',
  POWERTOOLS_SERVICE_NAME: 'bench',
  POWERTOOLS_METRICS_NAMESPACE: 'InfraCatalog',
  POWERTOOLS_TRACE_ENABLED: 'true',
};
const all = new Map<string, number[]>();
for (let i = 0; i < Number(runs); i++) {
  const o = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await import(process.argv[1]); console.log(JSON.stringify([...globalThis.__mtR]))`,
      out,
    ],
    { env },
  ).toString();
  for (const [k, v] of JSON.parse(o) as [string, number][]) all.set(k, [...(all.get(k) ?? []), v]);
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [...all].map(([k, v]) => [k, med(v)] as const).sort((a, b) => b[1] - a[1]);
console.log('total', rows.reduce((a, r) => a + r[1], 0).toFixed(1));
for (const [k, v] of rows.slice(0, 40)) if (v > 0.2) console.log(v.toFixed(2).padStart(7), k);
