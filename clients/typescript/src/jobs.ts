import type { InfracatClient } from './client.js';

/** A progress message of an export or import job (the WebSocket's and, by polling, the status route's). */
export interface JobProgress {
  status: 'queued' | 'running' | 'succeeded' | 'failed' | (string & {});
  pct: number;
  done: number;
  total: number;
  /** Where the figures came from: the live channel, or the status route when it could not be used. */
  via: 'websocket' | 'polling';
}

const FINISHED = new Set(['succeeded', 'failed']);

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
 */
function followLive(url: string, report: (p: JobProgress) => void, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url);
    let seq = -1;
    const stop = (err?: Error) => {
      ws.onclose = ws.onerror = ws.onmessage = null;
      ws.close();
      signal?.removeEventListener('abort', aborted);
      if (err) reject(err);
      else resolve();
    };
    const aborted = () => stop(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', aborted);
    ws.onopen = () => ws.send(JSON.stringify({ action: 'sync' }));
    ws.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data)) as ProgressMessage;
      if (m.seq < seq) return;
      seq = m.seq;
      report({ status: m.status, pct: m.pct, done: m.counts?.done ?? 0, total: m.counts?.total ?? 0, via: 'websocket' });
      if (FINISHED.has(m.status)) stop();
    };
    ws.onerror = () => stop(new Error('The progress channel failed'));
    ws.onclose = () => stop(new Error('The progress channel closed'));
  });
}

/**
 * Follows an export or import job to its end and returns its record (`GET /impex/status/{job_id}`):
 * live over the progress WebSocket (a single-use ticket from `POST /impex/progress-ticket`), and by
 * polling the status route when the socket cannot be opened or closes early.
 */
export async function followJob(client: InfracatClient, jobId: string, opts: { onProgress?: (p: JobProgress) => void; pollMs?: number; timeoutMs?: number; signal?: AbortSignal } = {}) {
  const { signal } = opts;
  const status = async () => (await client.api.GET('/impex/status/{job_id}', { params: { path: { job_id: jobId } }, signal })).data!;
  const report = (p: JobProgress) => opts.onProgress?.(p);
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  try {
    const { data: ticket } = await client.api.POST('/impex/progress-ticket', { body: { job_id: jobId }, signal });
    await followLive(ticket!.url, report, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    // No live channel: the status route says the same, a little later.
  }
  for (;;) {
    const record = await status();
    report({ status: record.status, pct: record.progress.pct, done: record.progress.done, total: record.progress.total, via: 'polling' });
    if (FINISHED.has(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish in time`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}
