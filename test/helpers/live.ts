import WebSocket from 'ws';
import { expect } from 'vitest';
import type { Client } from './http.ts';

/** A change message of the live WebSocket (or its reload message). */
export interface LiveMessage {
  seq: number;
  kind?: string;
  id?: string;
  op?: 'created' | 'updated' | 'deleted';
  at?: string;
  item?: Record<string, unknown>;
  reload?: true;
  live?: true;
}

/** A followed environment: every message received so far, a wait for one that matches, and the close. */
export interface Follower {
  messages: LiveMessage[];
  /** Resolves with the first message (received so far or later) matching `match`; rejects after `ms`. */
  next(match: (m: LiveMessage) => boolean, ms?: number): Promise<LiveMessage>;
  /** Resolves with the close code once the server (or the client) closed the socket. */
  closed: Promise<number>;
  close(): void;
}

/** Asks for a live ticket (expecting 200) and answers it. */
export async function liveTicket(api: Client, token: string, body: Record<string, unknown>) {
  const res = await api.post('/live/ticket', body, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as { url: string; ticket: string; expires_in: number; since: number };
}

/** Opens a live WebSocket on `url`, sends its first message (the start) and waits until it is live. */
export async function followUrl(url: string): Promise<Follower> {
  const ws = new WebSocket(url);
  const messages: LiveMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as LiveMessage);
    for (const w of waiters) w();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
  });
  ws.send(JSON.stringify({ action: 'sync' }));
  const follower: Follower = {
    messages,
    closed,
    close: () => ws.close(),
    next(match, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching live message within ${ms} ms; got ${JSON.stringify(messages)}`));
        }, ms);
        if (!check()) waiters.add(check);
      });
    },
  };
  // Live once the server says so: what is written from then on reaches it.
  await follower.next((m) => m.live === true);
  return follower;
}

/** A ticket and a live connection on one environment. */
export async function follow(api: Client, token: string, body: Record<string, unknown>): Promise<Follower> {
  return followUrl((await liveTicket(api, token, body)).url);
}
