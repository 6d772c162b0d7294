import type { InfracatClient } from './client.js';

/** A progress message of an export or import job (the WebSocket's and, by polling, the status route's). */
export interface JobProgress {
  status: 'queued' | 'running' | 'succeeded' | 'failed' | string;
  pct: number;
  done?: number;
  total?: number;
}

const FINISHED = new Set(['succeeded', 'failed']);

type WebSocketLike = {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
};

async function openSocket(url: string): Promise<WebSocketLike> {
  const Native = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (Native) return new Native(url);
  const { default: WS } = await import('ws');
  return new WS(url) as unknown as WebSocketLike;
}

/**
 * Follows an export or import job to its end and returns its record (`GET /impex/status/{job_id}`):
 * live over the progress WebSocket (a single-use ticket from `POST /impex/progress-ticket`), and by
 * polling the status route when the socket cannot be opened or closes early.
 */
export async function followJob(client: InfracatClient, jobId: string, opts: { onProgress?: (p: JobProgress) => void; pollMs?: number; timeoutMs?: number } = {}) {
  const status = async () => (await client.api.GET('/impex/status/{job_id}', { params: { path: { job_id: jobId } } })).data!;
  const report = (p: JobProgress) => opts.onProgress?.(p);
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  try {
    const { data: ticket } = await client.api.POST('/impex/progress-ticket', { body: { job_id: jobId } });
    const ws = await openSocket(ticket!.url);
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err?: unknown) => {
        if (settled) return;
        settled = true;
        try {
          ws.close();
        } catch {
          /* already closed */
        }
        if (err) reject(err);
        else resolve();
      };
      ws.onopen = () => ws.send(JSON.stringify({ action: 'sync' }));
      ws.onmessage = (ev) => {
        const m = JSON.parse(String(ev.data)) as { status: string; pct: number; counts?: { done?: number; total?: number } };
        report({ status: m.status, pct: m.pct, done: m.counts?.done, total: m.counts?.total });
        if (FINISHED.has(m.status)) finish();
      };
      ws.onerror = (ev) => finish(ev instanceof Error ? ev : new Error('progress socket failed'));
      ws.onclose = () => finish(new Error('progress socket closed'));
    });
  } catch {
    // No live channel: poll the status route instead.
  }
  for (;;) {
    const record = await status();
    report({ status: record.status, pct: record.progress.pct, done: record.progress.done, total: record.progress.total });
    if (FINISHED.has(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish in time`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}
