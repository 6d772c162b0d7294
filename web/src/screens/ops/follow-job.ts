import { api, ok, type ImpexRecord } from '../../api';

/** What the progress WebSocket says of an export or import job (`shared/domain/impex/progress.ts`). */
export interface JobProgress {
  status: ImpexRecord['status'];
  pct: number;
  done: number;
  total: number;
  /** Where the figures came from: the live channel, or the status route when it could not be used. */
  via: 'websocket' | 'polling';
}

const FINISHED = new Set<string>(['succeeded', 'failed']);
const POLL_MS = 700;

const record = (jobId: string, signal?: AbortSignal) => ok(api.GET('/impex/status/{job_id}', { params: { path: { job_id: jobId } }, signal }));

/**
 * Follows an export or import job to its end and returns its record, as the CLI does
 * (`clients/typescript/src/jobs.ts`): live over the progress WebSocket with a single-use ticket
 * (same origin, so the page's `connect-src 'self'` allows it), asking for the current state once open;
 * messages older than the last one seen (`seq`) are dropped. When the socket cannot be opened or closes
 * early, the status route is polled instead.
 */
export async function followJob(jobId: string, onProgress: (p: JobProgress) => void, signal?: AbortSignal): Promise<ImpexRecord> {
  try {
    const ticket = await ok(api.POST('/impex/progress-ticket', { body: { job_id: jobId }, signal }));
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(ticket.url);
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
        const m = JSON.parse(String(ev.data)) as { status: ImpexRecord['status']; pct: number; seq: number; counts?: { done?: number; total?: number } };
        if (m.seq < seq) return;
        seq = m.seq;
        onProgress({ status: m.status, pct: m.pct, done: m.counts?.done ?? 0, total: m.counts?.total ?? 0, via: 'websocket' });
        if (FINISHED.has(m.status)) stop();
      };
      ws.onerror = () => stop(new Error('The progress channel failed'));
      ws.onclose = () => stop(new Error('The progress channel closed'));
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    // No live channel: the status route says the same, a little later.
  }
  for (;;) {
    const r = await record(jobId, signal);
    if (FINISHED.has(r.status)) return r;
    onProgress({ status: r.status, pct: r.progress.pct, done: r.progress.done, total: r.progress.total, via: 'polling' });
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
