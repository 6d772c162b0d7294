import WebSocket from 'ws';
import { workerTable } from '../../functions/workers/index.ts';

/** A progress message as the WebSocket channel sends it. */
export interface ProgressMessage {
  type: string;
  job_id: string;
  status: string;
  pct: number;
  seq: number;
  counts: Record<string, number>;
}

/** Holds the jobs queue's worker until `open()` (or the end of `body`), so a job stays queued meanwhile. */
export async function withJobsHeld<T>(body: (open: () => void) => Promise<T>): Promise<T> {
  const jobs = workerTable.jobs!;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  workerTable.jobs = { ...jobs, handler: async (e) => (await gate, jobs.handler(e)) };
  try {
    return await body(open);
  } finally {
    open();
    workerTable.jobs = jobs;
  }
}

/**
 * Opens the progress WebSocket at `url`, asks for the current state and waits for the answer, then runs
 * `release` (which lets the held job run and waits for it) and collects every message until the job finishes.
 */
export async function followProgress(url: string, release: () => Promise<void>): Promise<ProgressMessage[]> {
  const messages: ProgressMessage[] = [];
  const ws = new WebSocket(url);
  let answered!: () => void;
  const firstAnswer = new Promise<void>((r) => (answered = r));
  const done = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as ProgressMessage;
      messages.push(m);
      answered();
      if (m.status === 'succeeded' || m.status === 'failed') resolve();
    });
    ws.on('error', reject);
  });
  await new Promise((r) => ws.on('open', r));
  ws.send(JSON.stringify({ action: 'sync' })); // the current state: still queued
  // Its answer before the job may move: a fixed pause was a guess, and on a loaded machine the answer can come late.
  await Promise.race([firstAnswer, done]);
  await release();
  await done;
  ws.close();
  return messages;
}

/** The HTTP status a WebSocket upgrade to `url` is refused with (-1 when it fails otherwise). */
export const refusedUpgrade = (url: string) =>
  new Promise<number>((resolve) =>
    new WebSocket(url)
      .on('unexpected-response', (_req, r) => resolve(r.statusCode ?? 0))
      .on('error', () => resolve(-1)),
  );
