import { expect } from 'vitest';
import type { Client } from './http.ts';
import type { TestStack } from './stack.ts';

/**
 * Export and import jobs over HTTP as the dashboard runs them, on a file's stack (`useTestStack`'s
 * ref): a multipart POST and the wait for its job.
 */
export function impexJobs(ref: { stack: TestStack }, api: Client) {
  /** A multipart POST as a browser's FormData makes it. */
  async function form(
    path: string,
    token: string,
    fields: Record<string, string>,
    file?: { name: string; text: string },
  ) {
    const body = new FormData();
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    if (file) body.set('file', new Blob([file.text], { type: 'application/yaml' }), file.name);
    const res = await fetch(`${ref.stack.url}${path}`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  }

  /** Waits for a job through the token-in-query status endpoint. */
  async function finished(token: string, jobId: string) {
    for (let i = 0; i < 200; i++) {
      await ref.stack.queues.drain();
      const res = await api.get(`/impex/status/${jobId}?token=${encodeURIComponent(token)}`);
      expect(res.status, res.text).toBe(200);
      if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    }
    throw new Error('job never finished');
  }

  return { form, finished };
}
