import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { text as readStream } from 'node:stream/consumers';
import { multipart } from '../client.ts';
import { followJob, type JobProgress } from '../jobs.ts';
import type { paths } from '../schema.d.ts';
import type { Connected } from './context.ts';
import { CliError } from './errors.ts';
import { progressBar } from './on-first-use.ts';
import { say } from './output.ts';

export type JobRecord = paths['/impex/status/{job_id}']['get']['responses'][200]['content']['application/json'];
export type Report = NonNullable<JobRecord['report']>;
type ImportBody = paths['/impex/import']['post']['requestBody']['content']['multipart/form-data'];

/** Documents above this size go through an upload URL (a request carries at most the server's IMPEX_MAX_DOCUMENT_BYTES). */
export const UPLOAD_ABOVE_BYTES = 5 * 1024 * 1024;
/** In a log (no terminal), a progress line at most this often, with counts. */
export const LOG_EVERY_MS = 10_000;

/** A document: its name for the record and its text; `-` reads standard input. */
export interface DocumentFile {
  name: string;
  text: string;
}

export async function readDocument(file: string): Promise<DocumentFile> {
  if (file === '-') return { name: 'stdin.yaml', text: await readStream(process.stdin) };
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) =>
    Promise.reject(new CliError(`Cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)),
  );
  return { name: basename(file), text };
}

/** Progress on stderr: a bar on a terminal; otherwise (CI logs) a line per change of status and, while running, one every 10 s with counts. */
export function progressView(label: string, quiet: boolean) {
  if (quiet) return { update: (_p: JobProgress) => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const bar = new (progressBar().SingleBar)(
      {
        format: `${label} [{bar}] {percentage}% | {status}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      undefined,
    );
    bar.start(100, 0, { status: 'queued' });
    return { update: (p: JobProgress) => bar.update(p.pct, { status: p.status }), stop: () => bar.stop() };
  }
  let status = '';
  let at = 0;
  return {
    update: (p: JobProgress) => {
      const now = Date.now();
      if (p.status === status && now - at < LOG_EVERY_MS) return;
      status = p.status;
      at = now;
      say(
        p.status === 'running' && p.total
          ? `${label}: running ${p.done}/${p.total} (${p.pct}%)`
          : `${label}: ${p.status}`,
      );
    },
    stop: () => {},
  };
}

type Target = { project_id: string; environment_id: string };

/** Starts an import (or its dry run): a document over 5 MB is put through an upload URL first. Answers the job id. */
export async function startImport(
  c: Connected,
  target: Target,
  doc: DocumentFile,
  opts: { dryRun: boolean; fingerprint?: string; prune?: boolean },
): Promise<string> {
  const fields = {
    ...target,
    dry_run: opts.dryRun ? ('true' as const) : ('false' as const),
    ...(opts.fingerprint ? { plan_fingerprint: opts.fingerprint } : {}),
    ...(opts.prune ? { prune: 'true' as const } : {}),
  };
  let body: ImportBody;
  const size = Buffer.byteLength(doc.text);
  if (size > UPLOAD_ABOVE_BYTES) {
    const { data: upload } = await c.client.api.POST('/impex/upload-url', {
      body: { ...target, size, content_type: 'application/yaml' },
    });
    const put = await fetch(upload!.url, { method: 'PUT', headers: upload!.headers, body: doc.text });
    if (!put.ok) throw new CliError(`The upload of ${doc.name} failed (HTTP ${put.status}).`);
    body = { ...fields, upload_id: upload!.upload_id, filename: doc.name };
  } else body = { ...fields, file: { filename: doc.name, content_type: 'application/yaml', text: doc.text } };
  const { data: started } = await c.client.api.POST('/impex/import', { body, bodySerializer: multipart });
  return started!.job_id;
}

/** What to run to follow a job that goes on without us, or to stop it. */
export const watchCommand = (jobId: string) => `infracat jobs watch ${jobId}`;
export const cancelCommand = (jobId: string) => `infracat jobs cancel ${jobId}`;

/**
 * Follows a job to its end with progress. Ctrl-C stops following, not the job: it prints the job's
 * id, how to follow it again and how to cancel it, and exits 130 (as an interrupted command does).
 */
export async function followWithProgress(
  c: Connected,
  jobId: string,
  label: string,
  quiet: boolean,
): Promise<JobRecord> {
  const view = progressView(label, quiet);
  const interrupted = () => {
    view.stop();
    process.stderr.write(
      `\nInterrupted: the ${label} goes on on the server (job ${jobId}).\nFollow it: ${watchCommand(jobId)}\nStop it:   ${cancelCommand(jobId)}\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    return await followJob(c.client, jobId, { onProgress: view.update });
  } finally {
    process.off('SIGINT', interrupted);
    view.stop();
  }
}

/** A finished import as a line of counts, its problems and error. */
export function resultLines(record: JobRecord): string[] {
  const s = record.report?.summary;
  const lines = [
    `Import ${record.status}${s ? `: ${s.create} created, ${s.update} updated, ${s.unchanged} unchanged` : ''}.`,
  ];
  for (const e of record.report?.errors ?? [])
    lines.push(`  ${record.filename ?? ''}:${e.line ?? '?'}  ${e.path}  ${e.message}`);
  if (record.error) lines.push(`  ${record.error}`);
  return lines;
}
