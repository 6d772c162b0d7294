import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { multipart } from '../client.ts';
import { examples, inTarget, optionsOf, withOutput, withTarget } from './common.ts';
import { connect } from './context.ts';
import { CliError } from './errors.ts';
import {
  followWithProgress,
  readDocument,
  resultLines,
  startImport,
  watchCommand,
  type JobRecord,
} from './import-job.ts';
import { yaml } from './on-first-use.ts';
import { emit, say, type Format } from './output.ts';
import { inEnv } from './target.ts';

function showResult(record: JobRecord, format: Format) {
  if (format !== 'table') return emit(record, format);
  process.stdout.write(`${resultLines(record).join('\n')}\n`);
}

/** What `export -o` takes: the document's format (it used to take a file name: say where that went). */
const EXPORT_FORMATS = ['yaml', 'json'] as const;
function exportFormat(v: string): (typeof EXPORT_FORMATS)[number] {
  if ((EXPORT_FORMATS as readonly string[]).includes(v)) return v as 'yaml' | 'json';
  throw new CliError(`-o takes the document's format (yaml or json); to write a file, use --file ${v}`);
}

export function impexCommands(program: Command) {
  examples(
    withTarget(
      program.command('export').description('export the environment as a document (YAML, or JSON with -o json)'),
    )
      .option('-o, --output <format>', "the document's format: yaml or json", 'yaml')
      .option('--file <path>', 'write to this file (default: stdout)')
      .option('-q, --quiet', 'no progress')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const format = exportFormat(o.output);
        const { data: started } = await c.client.api.POST('/impex/export', {
          body: inEnv(t),
          bodySerializer: multipart,
        });
        const record = await followWithProgress(c, started!.job_id, 'export', !!o.quiet);
        if (record.status !== 'succeeded' || !record.download_url)
          throw new CliError(`The export failed: ${record.error ?? record.status}`);
        const link = new URL(record.download_url);
        const { data: document } = await c.client.api.GET('/impex/download/{record_id}', {
          params: {
            path: { record_id: link.pathname.split('/').at(-1)! },
            query: { exp: link.searchParams.get('exp')!, sig: link.searchParams.get('sig')! } as never,
          },
          parseAs: 'text',
        });
        const text =
          format === 'json' ? `${JSON.stringify(yaml().parse(document as string), null, 2)}\n` : (document as string);
        const out = o.file as string | undefined;
        if (out && out !== '-') {
          await writeFile(out, text);
          say(`Exported ${t.project.name}/${t.environment.name} to ${out}`);
        } else process.stdout.write(text);
      }),
    'infracat export --file env.yaml',
    'infracat export -o json --file env.json',
    'infracat export --env staging > staging.yaml',
  );

  examples(
    withOutput(
      withTarget(
        program
          .command('import <file>')
          .description(
            "import a document into the environment (creates and updates; never deletes; '-' reads standard input)",
          ),
      ),
    )
      .option('-q, --quiet', 'no progress')
      .action(async (file, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const jobId = await startImport(c, inEnv(t), await readDocument(file), { dryRun: false });
        const record = await followWithProgress(c, jobId, 'import', !!o.quiet);
        showResult(record, o.output);
        if (record.status !== 'succeeded') process.exitCode = 1;
      }),
    'infracat import env.yaml',
    'infracat import env.yaml --env staging -o json',
  );

  const jobs = program.command('jobs').description('export and import jobs');
  examples(
    withOutput(
      jobs
        .command('watch <job_id>')
        .description('follow a job (e.g. an import whose apply was interrupted) to its end'),
    )
      .option('-q, --quiet', 'no progress')
      .action(async (jobId: string, _o, cmd) => {
        const o = optionsOf(cmd);
        const record = await followWithProgress(await connect(o), jobId, 'job', !!o.quiet);
        if (record.kind === 'import') showResult(record, o.output);
        else emit(record, o.output === 'table' ? 'yaml' : o.output);
        if (record.status !== 'succeeded') process.exitCode = 1;
      }),
    'infracat jobs watch 3f6c…',
    'infracat jobs watch 3f6c… -o json',
  );

  examples(
    withOutput(
      jobs
        .command('cancel <job_id>')
        .description(
          'cancel a job: a queued one at once; a running import stops at its next chunk boundary (what it wrote stays, chunk by chunk)',
        ),
    )
      .option('--no-wait', 'ask and return, without waiting for the import to stop')
      .option('-q, --quiet', 'no progress')
      .action(async (jobId: string, _o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const { data: asked } = await c.client.api.POST('/impex/cancel/{job_id}', {
          params: { path: { job_id: jobId } },
        });
        const record =
          asked!.status === 'running' && o.wait ? await followWithProgress(c, jobId, 'job', !!o.quiet) : asked!;
        if (o.output !== 'table') return emit(record, o.output);
        say(
          record.status === 'cancelled'
            ? `Job ${jobId} cancelled.`
            : record.status === 'running'
              ? `Job ${jobId} is stopping at its next chunk boundary (${watchCommand(jobId)}).`
              : `Job ${jobId} ${record.status} before it could stop.`,
        );
        if (record.kind === 'import' && record.report) showResult(record, 'table');
        if (record.status !== 'cancelled' && record.status !== 'running') process.exitCode = 1;
      }),
    'infracat jobs cancel 3f6c…',
    'infracat jobs cancel 3f6c… --no-wait',
  );
}
