import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { faults, persist } from '../helpers/faults.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { faultCounts } from '#shared/faults';

const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

afterEach(() => faults(''));

/** A multipart body as a browser's FormData makes it, built once so that every retry sends the same bytes. */
async function multipart(fields: Record<string, string>, file: { name: string; text: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([file.text], { type: 'application/yaml' }), file.name);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { raw: await request.text(), contentType: request.headers.get('content-type')! };
}

describe('a creating POST whose write timed out after it took effect', () => {
  it('imports once per key: the retry gets the first answer, the history holds one record per import', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const document = JSON.stringify((await api.get('/impex/example', { token })).body);
    const { raw, contentType } = await multipart(
      { project_id: projectId, environment_id: envId },
      { name: 'env.json', text: document },
    );
    const jobs: string[] = [];
    let injected = 0;
    for (let i = 0; i < 8; i++) {
      const key = randomUUID();
      // Most writes take effect and then time out: the SDK's own retries are often used up.
      faults('ddb.timeout-after-write:0.6', 100 + i);
      const started = await persist(() =>
        api.post('/impex/import', undefined, {
          token,
          raw,
          headers: { 'content-type': contentType, 'idempotency-key': key },
        }),
      );
      injected += faultCounts()['ddb.timeout-after-write'] ?? 0;
      faults('');
      expect(started.status, started.text).toBe(202);
      jobs.push(started.body.job_id);
      await ref.stack.queues.drain(); // the job runs and lets the environment's lock go
    }
    expect(injected).toBeGreaterThan(8);
    const history = await api.get(`/impex/history?project_id=${projectId}`, { token });
    const imports = (history.body as { kind: string; job_id: string }[]).filter((r) => r.kind === 'import');
    expect(imports.map((r) => r.job_id).sort()).toEqual([...new Set(jobs)].sort());
    expect(imports).toHaveLength(8);
  });

  it.each(['throttle', 'error', 'unavailable'])(
    's3.%s while the document is kept: a clean 503, and the retry with the key imports once',
    async (kind) => {
      const { token, projectId, envId } = await ownerWithEnv(api);
      const document = JSON.stringify((await api.get('/impex/example', { token })).body);
      const { raw, contentType } = await multipart(
        { project_id: projectId, environment_id: envId },
        { name: 'env.json', text: document },
      );
      const send = (key: string) =>
        api.post('/impex/import', undefined, {
          token,
          raw,
          headers: { 'content-type': contentType, 'idempotency-key': key },
        });
      const key = randomUUID();
      faults(`s3.${kind}:1`);
      const refused = await send(key);
      expect(faultCounts()[`s3.${kind}`]).toBeGreaterThan(0);
      faults('');
      expect(refused.status, refused.text).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const started = await send(key);
      expect(started.status, started.text).toBe(202);
      await ref.stack.queues.drain();
      const history = (await api.get(`/impex/history?project_id=${projectId}`, { token })).body as {
        kind: string;
        status: string;
      }[];
      expect(history.filter((r) => r.kind === 'import').map((r) => r.status)).toEqual(['succeeded']);
    },
  );

  it("s3.timeout-after-write (once per call): the SDK's retry keeps the document, and the import runs once", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const document = JSON.stringify((await api.get('/impex/example', { token })).body);
    const { raw, contentType } = await multipart(
      { project_id: projectId, environment_id: envId },
      { name: 'env.json', text: document },
    );
    faults('s3.timeout-after-write:1');
    const started = await api.post('/impex/import', undefined, {
      token,
      raw,
      headers: { 'content-type': contentType },
    });
    expect(faultCounts()['s3.timeout-after-write']).toBeGreaterThan(0);
    faults('');
    expect(started.status, started.text).toBe(202);
    await ref.stack.queues.drain();
    const history = (await api.get(`/impex/history?project_id=${projectId}`, { token })).body as {
      kind: string;
      status: string;
    }[];
    expect(history.filter((r) => r.kind === 'import').map((r) => r.status)).toEqual(['succeeded']);
  });
});
