import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { withJobsHeld, type ProgressMessage } from '../helpers/progress.ts';

const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

/** Opens the progress WebSocket and sends `sync` the moment it is open; answers the first message it gets (undefined: none within `ms`). */
function firstMessageAfterSync(url: string, ms: number): Promise<ProgressMessage | undefined> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => (ws.close(), resolve(undefined)), ms);
    ws.on('open', () => ws.send(JSON.stringify({ action: 'sync' })));
    ws.on('message', (data) => {
      clearTimeout(timer);
      ws.close();
      resolve(JSON.parse(String(data)) as ProgressMessage);
    });
    ws.on('error', (err) => (clearTimeout(timer), reject(err)));
  });
}

describe('progress WebSocket (local stand-in)', () => {
  // A `sync` sent right after opening used to be handled before the connection's
  // $connect bookkeeping was written, so it found no connection and went unanswered (the client's first
  // message was then `running`). API Gateway only routes messages once $connect has succeeded.
  it('answers a sync sent the moment the socket opens with the current state, for 50 connections opened at once', async () => {
    const o = await ownerWithEnv(api, 'Team');
    await withJobsHeld(async () => {
      const body = new FormData();
      body.set('project_id', o.projectId);
      body.set('environment_id', o.envId);
      const started = await fetch(`${ref.stack.url}/impex/export`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${o.token}` },
      });
      expect(started.status).toBe(202);
      const jobId = ((await started.json()) as { job_id: string }).job_id;
      const urls: string[] = [];
      for (let i = 0; i < 50; i++) {
        const ticket = await api.post('/impex/progress-ticket', { job_id: jobId }, { token: o.token });
        expect(ticket.status, ticket.text).toBe(200);
        urls.push(ticket.body.url);
      }
      // The job is held, so its state stays `queued`: every client's first message must say so.
      const firsts = await Promise.all(urls.map((url) => firstMessageAfterSync(url, 5000)));
      const wrong = firsts.map((m, i) => ({ i, m })).filter(({ m }) => m?.status !== 'queued' || m.job_id !== jobId);
      expect(wrong, `${wrong.length} of 50 clients did not get the current state first`).toEqual([]);
    });
  });
});
