import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { parse } from 'yaml';
import { multipart } from '../client.js';
import { followJob, type JobProgress } from '../jobs.js';
import { collect } from '../paging.js';
import type { paths } from '../schema.js';
import { examples, inTarget, withOutput, withTarget } from './common.js';
import type { Connected } from './context.js';
import { CliError } from './errors.js';
import { emit, say, type Format } from './output.js';
import { prompts } from './prompts.js';
import { inEnv, type Target } from './target.js';

type JobRecord = paths['/impex/status/{job_id}']['get']['responses'][200]['content']['application/json'];
type Report = NonNullable<JobRecord['report']>;
type ImportBody = paths['/impex/import']['post']['requestBody']['content']['multipart/form-data'];

/** Progress on stderr: a bar on a terminal, a line per change of status otherwise (CI logs). */
function progressView(label: string, quiet: boolean) {
  if (quiet) return { update: (_p: JobProgress) => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: `${label} [{bar}] {percentage}% | {status}`, stream: process.stderr, hideCursor: true, clearOnComplete: false }, undefined);
    bar.start(100, 0, { status: 'queued' });
    return { update: (p: JobProgress) => bar.update(p.pct, { status: p.status }), stop: () => bar.stop() };
  }
  let last = '';
  return {
    update: (p: JobProgress) => {
      const line = `${label}: ${p.status}`;
      if (line !== last) say((last = line));
    },
    stop: () => {},
  };
}

/** Starts an import (or its dry run) of `file` into the target, follows it, returns its record. */
async function runImport(c: Connected, t: Target, file: string, text: string, dryRun: boolean, quiet: boolean): Promise<JobRecord> {
  const body: ImportBody = { ...inEnv(t), file: { filename: basename(file), content_type: 'application/yaml', text }, dry_run: dryRun ? 'true' : 'false' };
  const { data: started } = await c.client.api.POST('/impex/import', { body, bodySerializer: multipart });
  const view = progressView(dryRun ? 'plan' : 'import', quiet);
  try {
    return await followJob(c.client, started!.job_id, { onProgress: view.update });
  } finally {
    view.stop();
  }
}

const SIGN: Record<string, string> = { create: '+', update: '~', delete: '-', unchanged: ' ', error: '!' };

interface Plan {
  file: string;
  target: string;
  summary: Report['summary'] & { delete: number };
  items: (Report['items'][number] | { kind: string; name: string; action: 'delete' })[];
  errors: Report['errors'];
  deletions: { kind: string; id: string; name: string }[];
}

/** What the environment has that the file does not name (services, floors, networks, groups): deleted by `--prune`. */
async function prunable(c: Connected, t: Target, text: string): Promise<Plan['deletions']> {
  let spec: Record<string, { name?: string; hostname?: string }[] | undefined> = {};
  try {
    spec = (parse(text) as { spec?: typeof spec })?.spec ?? {};
  } catch {
    return []; // the service reports the document's problems
  }
  const names = (list: { name?: string; hostname?: string }[] | undefined, key: 'name' | 'hostname') => new Set((list ?? []).map((e) => String(e?.[key] ?? '').toLowerCase()));
  const [services, floors, networks, groups] = await Promise.all([
    collect(c.client.services(inEnv(t))),
    c.client.api.GET('/service-floors', { params: { query: inEnv(t) } }).then((r) => r.data!),
    c.client.api.GET('/networks', { params: { query: inEnv(t) } }).then((r) => r.data!),
    c.client.api.GET('/groups', { params: { query: inEnv(t) } }).then((r) => r.data!),
  ]);
  const keep = { service: names(spec.services, 'name'), floor: names(spec.service_floors, 'hostname'), network: names(spec.networks, 'name'), group: names(spec.groups, 'name') };
  return [
    ...services.filter((s) => !keep.service.has(s.name.toLowerCase())).map((s) => ({ kind: 'service', id: s.id, name: s.name })),
    ...floors.filter((f) => !keep.floor.has((f.hostname ?? '').toLowerCase())).map((f) => ({ kind: 'service_floor', id: f.id, name: f.hostname ?? f.id })),
    ...networks.filter((n) => !keep.network.has(n.name.toLowerCase())).map((n) => ({ kind: 'network', id: n.id, name: n.name })),
    ...groups.filter((g) => !keep.group.has(String(g.name).toLowerCase())).map((g) => ({ kind: 'group', id: g.id, name: String(g.name) })),
  ];
}

async function makePlan(c: Connected, t: Target, file: string, prune: boolean, quiet: boolean): Promise<Plan> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => Promise.reject(new CliError(`Cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)));
  const record = await runImport(c, t, file, text, true, quiet);
  if (!record.report) throw new CliError(`The plan failed: ${record.error ?? 'no report'}`);
  const deletions = prune && !record.report.errors.length ? await prunable(c, t, text) : [];
  return {
    file,
    target: `${t.project.name}/${t.environment.name}`,
    summary: { ...record.report.summary, delete: deletions.length },
    items: [...record.report.items, ...deletions.map((d) => ({ kind: d.kind, name: d.name, action: 'delete' as const }))],
    errors: record.report.errors,
    deletions,
  };
}

const hasChanges = (p: Plan) => p.summary.create + p.summary.update + p.summary.delete > 0;

function showPlan(p: Plan, format: Format, showUnchanged: boolean) {
  if (format !== 'table') return emit({ file: p.file, target: p.target, summary: p.summary, items: p.items, errors: p.errors }, format);
  const out: string[] = [`Plan: ${p.file} → ${p.target}`, ''];
  for (const item of p.items) {
    if (item.action === 'unchanged' && !showUnchanged) continue;
    const detail = 'detail' in item && item.detail ? `  (${item.detail})` : '';
    out.push(`  ${SIGN[item.action] ?? '?'} ${item.kind.padEnd(18)} ${item.name}  ${item.action}${detail}`);
  }
  if (p.errors.length) {
    out.push('', 'Problems:');
    for (const e of p.errors) out.push(`  ${p.file}:${e.line ?? '?'}  ${e.path}  ${e.message}`);
  }
  const s = p.summary;
  out.push('', `${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged, ${p.errors.length} problem${p.errors.length === 1 ? '' : 's'}.`);
  if (!p.errors.length && !hasChanges(p)) out.push('No changes: the environment matches the file.');
  process.stdout.write(out.join('\n') + '\n');
}

async function prune(c: Connected, deletions: Plan['deletions']) {
  const order = ['service', 'service_floor', 'network', 'group'];
  for (const kind of order) {
    for (const d of deletions.filter((x) => x.kind === kind)) {
      if (kind === 'service') await c.client.api.DELETE('/services/{service_id}', { params: { path: { service_id: d.id } } });
      if (kind === 'service_floor') await c.client.api.DELETE('/service-floors/{floor_id}', { params: { path: { floor_id: d.id } } });
      if (kind === 'network') await c.client.api.DELETE('/networks/{network_id}', { params: { path: { network_id: d.id } } });
      if (kind === 'group') await c.client.api.DELETE('/groups/{group_id}', { params: { path: { group_id: d.id } } });
    }
  }
}

function showResult(record: JobRecord, format: Format) {
  if (format !== 'table') return emit(record, format);
  const s = record.report?.summary;
  const lines = [`Import ${record.status}${s ? `: ${s.create} created, ${s.update} updated, ${s.unchanged} unchanged` : ''}.`];
  for (const e of record.report?.errors ?? []) lines.push(`  ${record.filename ?? ''}:${e.line ?? '?'}  ${e.path}  ${e.message}`);
  if (record.error) lines.push(`  ${record.error}`);
  process.stdout.write(lines.join('\n') + '\n');
}

export function impexCommands(program: Command) {
  examples(withTarget(program.command('export').description('export the environment as a YAML document'))
    .option('-o, --output <file>', 'write to this file (default: stdout)').option('-q, --quiet', 'no progress')
    .action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const { data: started } = await c.client.api.POST('/impex/export', { body: inEnv(t), bodySerializer: multipart });
      const view = progressView('export', !!o.quiet);
      const record = await followJob(c.client, started!.job_id, { onProgress: view.update }).finally(() => view.stop());
      if (record.status !== 'succeeded' || !record.download_url) throw new CliError(`The export failed: ${record.error ?? record.status}`);
      const link = new URL(record.download_url);
      const { data: text } = await c.client.api.GET('/impex/download/{record_id}', {
        params: { path: { record_id: link.pathname.split('/').at(-1)! }, query: { exp: link.searchParams.get('exp')!, sig: link.searchParams.get('sig')! } as never },
        parseAs: 'text',
      });
      const out = o.output as string | undefined;
      if (out && out !== '-') {
        await writeFile(out, text as string);
        say(`Exported ${t.project.name}/${t.environment.name} to ${out}`);
      } else process.stdout.write(text as string);
    }), 'infracat export -o env.yaml', 'infracat export --env staging > staging.yaml');

  examples(withOutput(withTarget(program.command('import <file>').description('import a document into the environment (creates and updates; never deletes)')))
    .option('-q, --quiet', 'no progress')
    .action(async (file, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const text = await readFile(file, 'utf8').catch(() => Promise.reject(new CliError(`Cannot read ${file}`)));
      const record = await runImport(c, t, file, text, false, !!o.quiet);
      showResult(record, o.output);
      if (record.status !== 'succeeded') process.exitCode = 1;
    }), 'infracat import env.yaml', 'infracat import env.yaml --env staging -o json');

  examples(withOutput(withTarget(program.command('plan').description('what applying a file would change; exit 0 = no changes, 2 = changes pending, 1 = error')))
    .requiredOption('-f, --file <file>', 'the environment document (YAML or JSON)').option('--prune', 'also list what the environment has beyond the file (services, floors, networks, groups) as deletions')
    .option('--show-unchanged', 'list unchanged entities too').option('-q, --quiet', 'no progress')
    .action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const plan = await makePlan(c, t, o.file as string, !!o.prune, !!o.quiet);
      showPlan(plan, o.output, !!o.showUnchanged);
      process.exitCode = plan.errors.length ? 1 : hasChanges(plan) ? 2 : 0;
    }), 'infracat plan -f env.yaml', 'infracat plan -f env.yaml --prune -o json', 'infracat plan -f env.yaml; test $? -ne 1   # CI: fail on errors only');

  examples(withOutput(withTarget(program.command('apply').description('plan a file, confirm, then import it (and delete with --prune)')))
    .requiredOption('-f, --file <file>', 'the environment document').option('-y, --yes', 'do not ask for confirmation').option('--prune', 'delete what the environment has beyond the file')
    .option('-q, --quiet', 'no progress')
    .action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const file = o.file as string;
      const plan = await makePlan(c, t, file, !!o.prune, !!o.quiet);
      if (o.output === 'table') showPlan(plan, 'table', false);
      if (plan.errors.length) throw new CliError(`${file} has ${plan.errors.length} problem${plan.errors.length === 1 ? '' : 's'}: nothing applied.`);
      if (!hasChanges(plan)) {
        if (o.output !== 'table') emit({ status: 'unchanged', summary: plan.summary }, o.output);
        return;
      }
      if (!o.yes && !(await prompts.confirm(`Apply these changes to ${plan.target}?`))) throw new CliError('Cancelled: nothing applied.');
      const record = await runImport(c, t, file, await readFile(file, 'utf8'), false, !!o.quiet);
      if (record.status === 'succeeded' && plan.deletions.length) await prune(c, plan.deletions);
      if (o.output === 'table') {
        showResult(record, 'table');
        if (record.status === 'succeeded' && plan.deletions.length) process.stdout.write(`${plan.deletions.length} deleted.\n`);
      } else emit({ ...record, deleted: plan.deletions }, o.output);
      if (record.status !== 'succeeded') process.exitCode = 1;
    }), 'infracat apply -f env.yaml', 'infracat apply -f env.yaml --yes --prune');
}
