import type { InfracatClient } from './client.ts';

/** A progress message of an export or import job (the WebSocket's and, by polling, the status route's). */
export interface JobProgress {
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | (string & {});
  pct: number;
  done: number;
  total: number;
  /** Where the figures came from: the live channel, or the status route when it could not be used. */
  via: 'websocket' | 'polling';
}

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);
/** The socket silent this long: followed by polling instead (a lost push, a half-open connection, a job that died). */
const SILENCE_MS = 15_000;

/** What the progress socket sends (`shared/domain/impex/progress.ts`). */
interface ProgressMessage {
  status: string;
  pct: number;
  seq: number;
  counts?: { done?: number; total?: number };
}

/**
 * Follows the live channel until the job finishes: the platform's WebSocket (browsers, and Node from 22 on),
 * asking for the current state once open; messages older than the last one seen (`seq`) are dropped.
 * Never waits forever: silent for `silenceMs` (or past `deadline`) it ends, and the caller polls.
 */
function followLive(
  url: string,
  report: (p: JobProgress) => void,
  opts: { signal?: AbortSignal; silenceMs: number; deadline: number },
): Promise<void> {
  const { signal } = opts;
  return new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url);
    let seq = -1;
    let silence: ReturnType<typeof setTimeout> | undefined;
    const listen = () => {
      clearTimeout(silence);
      silence = setTimeout(
        () => stop(new Error('The progress channel went silent')),
        Math.max(0, Math.min(opts.silenceMs, opts.deadline - Date.now())),
      );
    };
    const stop = (err?: Error) => {
      clearTimeout(silence);
      ws.onopen = ws.onclose = ws.onerror = ws.onmessage = null;
      ws.close();
      signal?.removeEventListener('abort', aborted);
      if (err) reject(err);
      else resolve();
    };
    const aborted = () => stop(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', aborted);
    listen();
    ws.onopen = () => ws.send(JSON.stringify({ action: 'sync' }));
    ws.onmessage = (ev) => {
      listen();
      const m = JSON.parse(String(ev.data)) as ProgressMessage;
      if (m.seq < seq) return;
      seq = m.seq;
      report({
        status: m.status,
        pct: m.pct,
        done: m.counts?.done ?? 0,
        total: m.counts?.total ?? 0,
        via: 'websocket',
      });
      if (FINISHED.has(m.status)) stop();
    };
    ws.onerror = () => stop(new Error('The progress channel failed'));
    ws.onclose = () => stop(new Error('The progress channel closed'));
  });
}

/**
 * Follows an export or import job to its end and returns its record (`GET /impex/status/{job_id}`):
 * live over the progress WebSocket (a single-use ticket from `POST /impex/progress-ticket`), and by
 * polling the status route when the socket cannot be opened, closes early or goes silent for
 * `silenceMs` (the status route reports a job that died as failed). Past `timeoutMs` (default 30
 * minutes) it throws: a caller never waits forever.
 */
export async function followJob(
  client: InfracatClient,
  jobId: string,
  opts: {
    onProgress?: (p: JobProgress) => void;
    pollMs?: number;
    timeoutMs?: number;
    silenceMs?: number;
    signal?: AbortSignal;
  } = {},
) {
  const { signal } = opts;
  const status = async () =>
    (await client.api.GET('/impex/status/{job_id}', { params: { path: { job_id: jobId } }, signal })).data!;
  const report = (p: JobProgress) => opts.onProgress?.(p);
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  try {
    const { data: ticket } = await client.api.POST('/impex/progress-ticket', { body: { job_id: jobId }, signal });
    await followLive(ticket!.url, report, { signal, silenceMs: opts.silenceMs ?? SILENCE_MS, deadline });
  } catch (err) {
    if (signal?.aborted) throw err;
    // No live channel (or a silent one): the status route says the same, a little later.
  }
  for (;;) {
    const record = await status();
    report({
      status: record.status,
      pct: record.progress.pct,
      done: record.progress.done,
      total: record.progress.total,
      via: 'polling',
    });
    if (FINISHED.has(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish in time`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}
