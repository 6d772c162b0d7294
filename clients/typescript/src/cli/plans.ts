import { readFile, writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { examples, optionsOf, withTarget, inTarget } from './common.ts';
import { connect, type Connected } from './context.ts';
import { countsOf, type Extra } from './drift.ts';
import { CliError } from './errors.ts';
import {
  followWithProgress,
  readDocument,
  resultLines,
  startImport,
  type DocumentFile,
  type Report,
} from './import-job.ts';
import { emit, FORMATS, say, type Format } from './output.ts';
import { prompts } from './prompts.ts';
import { inEnv, type Target } from './target.ts';

/**
 * `plan` and `apply`: a plan compares the whole environment with the whole file. What the
 * environment has beyond the file is always listed (and makes `plan` exit 2); `--prune` turns it into
 * deletions. A plan saved with `--out` records the document, the deletions and the fingerprint of the
 * environment it was made against; `apply <plan>` applies exactly that, and the server refuses it
 * (writing nothing) when the environment changed since.
 */

const SIGN: Record<string, string> = { create: '+', update: '~', delete: '-', extra: '*', unchanged: ' ', error: '!' };
const SAVED_PLAN = 'infracat-plan/v1';

interface Plan {
  format: typeof SAVED_PLAN;
  file: string;
  target: { project_id: string; environment_id: string; name: string };
  prune: boolean;
  /** What the server planned against (applying refuses once it moved on). */
  fingerprint: string | null;
  summary: Report['summary'] & { delete: number; extra: number };
  items: (Report['items'][number] | { kind: string; name: string; action: 'delete' | 'extra' })[];
  errors: Report['errors'];
  /** What the environment has beyond the file: deleted when `prune`. */
  extras: Extra[];
  document: string;
}

const targetOf = (t: Target) => ({ ...inEnv(t), name: `${t.project.name}/${t.environment.name}` });

async function makePlan(c: Connected, t: Target, doc: DocumentFile, prune: boolean, quiet: boolean): Promise<Plan> {
  const target = targetOf(t);
  const jobId = await startImport(c, inEnv(t), doc, { dryRun: true });
  const record = await followWithProgress(c, jobId, 'plan', quiet);
  if (!record.report) throw new CliError(`The plan failed: ${record.error ?? 'no report'}`);
  // The server lists them (problems never hide them).
  const extras = record.report.extras ?? [];
  const action = prune ? ('delete' as const) : ('extra' as const);
  return {
    format: SAVED_PLAN,
    file: doc.name,
    target,
    prune,
    fingerprint: record.report.fingerprint ?? null,
    summary: { ...record.report.summary, delete: prune ? extras.length : 0, extra: prune ? 0 : extras.length },
    items: [...record.report.items, ...extras.map((d) => ({ kind: d.kind, name: d.name, action }))],
    errors: record.report.errors,
    extras,
    document: doc.text,
  };
}

const hasChanges = (p: Plan) => p.summary.create + p.summary.update + p.summary.delete + p.summary.extra > 0;

function showPlan(p: Plan, format: Format, showUnchanged: boolean) {
  if (format !== 'table')
    return emit({ file: p.file, target: p.target.name, summary: p.summary, items: p.items, errors: p.errors }, format);
  const out: string[] = [`Plan: ${p.file} → ${p.target.name}`, ''];
  for (const item of p.items) {
    if (item.action === 'unchanged' && !showUnchanged) continue;
    const detail =
      'detail' in item && item.detail
        ? `  (${item.detail})`
        : item.action === 'extra'
          ? '  (not in the file: kept; --prune deletes it)'
          : '';
    out.push(`  ${SIGN[item.action] ?? '?'} ${item.kind.padEnd(18)} ${item.name}  ${item.action}${detail}`);
  }
  if (p.errors.length) {
    out.push('', 'Problems:');
    for (const e of p.errors) out.push(`  ${p.file}:${e.line ?? '?'}  ${e.path}  ${e.message}`);
  }
  const s = p.summary;
  const extra = s.extra ? `, ${s.extra} not in the file` : '';
  out.push(
    '',
    `${s.create} to create, ${s.update} to update, ${s.delete} to delete${extra}, ${s.unchanged} unchanged, ${p.errors.length} problem${p.errors.length === 1 ? '' : 's'}.`,
  );
  if (!p.errors.length && !hasChanges(p)) out.push('No changes: the environment matches the file.');
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Applies a plan: the import of its document against its fingerprint; with prune, the server's job deletes the extras too, under the import's lock. */
async function applyPlan(c: Connected, p: Plan, format: Format, quiet: boolean) {
  const jobId = await startImport(
    c,
    p.target,
    { name: p.file, text: p.document },
    { dryRun: false, fingerprint: p.fingerprint ?? undefined, prune: p.prune },
  );
  const record = await followWithProgress(c, jobId, 'import', quiet);
  const ok = record.status === 'succeeded';
  const deleted = record.report?.deleted ?? [];
  if (format === 'table') {
    const lines = resultLines(record);
    if (deleted.length) lines.push(`Deleted ${countsOf(deleted)}.`);
    if (ok && !p.prune && p.extras.length)
      lines.push(`Left ${countsOf(p.extras)} that the file does not have (apply --prune deletes them).`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } else emit({ ...record, deleted, left: p.prune ? [] : p.extras }, format);
  if (!ok) process.exitCode = 1;
}

/** `-o` takes a format, or (as terraform's `-out`) a file to save the plan in. */
const outputOption = () =>
  new Option(
    '-o, --output <format|file>',
    'output format (table, json, yaml), or a file to save the plan in (as --out)',
  ).default('table');
const formatOf = (v: string): Format => ((FORMATS as readonly string[]).includes(v) ? (v as Format) : 'table');

export function planCommands(program: Command) {
  examples(
    withTarget(
      program
        .command('plan')
        .description(
          'what applying a file would change; exit 0 = no changes, 2 = changes pending (or items not in the file), 1 = error',
        ),
    )
      .addOption(outputOption())
      .requiredOption('-f, --file <file>', "the environment document (YAML or JSON; '-' reads standard input)")
      .option('--prune', 'what the environment has beyond the file becomes deletions (else it is listed and kept)')
      .option('--out <file>', 'save the plan, to apply exactly it later (infracat apply <file>)')
      .option('--show-unchanged', 'list unchanged entities too')
      .option('-q, --quiet', 'no progress')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const format = formatOf(o.output);
        const out = (o.out as string | undefined) ?? (format === o.output ? undefined : (o.output as string));
        const plan = await makePlan(c, t, await readDocument(o.file as string), !!o.prune, !!o.quiet);
        showPlan(plan, format, !!o.showUnchanged);
        if (out && !plan.errors.length) {
          await writeFile(out, `${JSON.stringify(plan, null, 2)}\n`);
          say(`Saved the plan to ${out}: apply it with infracat apply ${out}`);
        }
        process.exitCode = plan.errors.length ? 1 : hasChanges(plan) ? 2 : 0;
      }),
    'infracat plan -f env.yaml',
    'infracat plan -f env.yaml --prune -o plan.json',
    'cat env.yaml | infracat plan -f - -o json',
    'infracat plan -f env.yaml; test $? -ne 1   # CI: fail on errors only',
  );

  examples(
    withTarget(
      program
        .command('apply [plan]')
        .description(
          'apply a saved plan exactly (refused if the environment changed since), or plan a file, confirm, and apply it',
        ),
    )
      .addOption(new Option('-o, --output <format>', 'output format').choices(FORMATS).default('table'))
      .option('-f, --file <file>', "the environment document ('-' reads standard input)")
      .option('-y, --yes', 'do not ask for confirmation')
      .option('--prune', 'delete what the environment has beyond the file')
      .option('-q, --quiet', 'no progress')
      .action(async (saved: string | undefined, _o, cmd) => {
        if (saved) {
          const o = optionsOf(cmd);
          const plan = JSON.parse(
            await readFile(saved, 'utf8').catch(() => Promise.reject(new CliError(`Cannot read ${saved}`))),
          ) as Plan;
          if (plan.format !== SAVED_PLAN) throw new CliError(`${saved} is not a plan saved by infracat plan --out.`);
          return applyPlan(await connect(o), plan, o.output, !!o.quiet);
        }
        const { c, t, o } = await inTarget(cmd);
        if (!o.file) throw new CliError('Give a saved plan (infracat apply plan.json) or a file (-f env.yaml).');
        const plan = await makePlan(c, t, await readDocument(o.file as string), !!o.prune, !!o.quiet);
        if (o.output === 'table') showPlan(plan, 'table', false);
        if (plan.errors.length)
          throw new CliError(
            `${plan.file} has ${plan.errors.length} problem${plan.errors.length === 1 ? '' : 's'}: nothing applied.`,
          );
        if (!plan.summary.create && !plan.summary.update && !plan.summary.delete) {
          if (o.output !== 'table') emit({ status: 'unchanged', summary: plan.summary }, o.output);
          else if (plan.extras.length)
            say(`Left ${countsOf(plan.extras)} that the file does not have (apply --prune deletes them).`);
          return;
        }
        if (
          !o.yes &&
          !(await prompts.confirm(`Apply these changes to ${plan.target.name}?`, 'pass --yes to apply without asking'))
        )
          throw new CliError('Cancelled: nothing applied.');
        await applyPlan(c, plan, o.output, !!o.quiet);
      }),
    'infracat apply -f env.yaml',
    'infracat apply -f env.yaml --yes --prune',
    'infracat plan -f env.yaml --out plan.json && infracat apply plan.json',
  );
}
