import { afterAll, beforeAll, expect } from 'vitest';
import { CloudStub } from '../../infra/local/cloud-stub.ts';
import type { Client } from './http.ts';
import type { TestStack } from './stack.ts';

/**
 * Writes that reach the catalog by a path other than its own routes, each run to its end through
 * its queue: an import job and a Hetzner discovery run. For tests that follow every path's changes.
 */

type Scope = { project_id: string; environment_id: string };

/**
 * A cloud stub for the file, started before its stack (call this before `useTestStack(env)`: it
 * names its Hetzner address in `env`) and stopped after.
 */
export function useHetznerStub(env: Record<string, string>): CloudStub {
  const stub = new CloudStub();
  beforeAll(async () => {
    await stub.start();
    env.HETZNER_API_BASE_URL = `${stub.url}/hetzner/v1`;
  });
  afterAll(() => stub.stop());
  return stub;
}

/** Imports `document` (as JSON) into the environment over HTTP and runs the job. */
export async function importDocument(ref: { stack: TestStack }, token: string, scope: Scope, document: unknown) {
  const body = new FormData();
  for (const [k, v] of Object.entries(scope)) body.set(k, v);
  body.set('file', new Blob([JSON.stringify(document)], { type: 'application/json' }), 'env.json');
  const res = await fetch(`${ref.stack.url}/impex/import`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status, await res.clone().text()).toBe(202);
  await ref.stack.queues.drain();
}

/** Connects a Hetzner account (the stub's token) to the environment and runs a discovery with it. */
export async function hetznerDiscovery(
  ref: { stack: TestStack },
  api: Client,
  stub: CloudStub,
  token: string,
  scope: Scope,
) {
  const account = await api.post(
    '/integrations/cloud-accounts',
    { ...scope, provider: 'hetzner', name: 'hcloud', api_token: stub.token },
    { token },
  );
  expect(account.status, account.text).toBe(201);
  const connected = await api.post('/integrations/cloud/hetzner/connect', { account_id: account.body.id }, { token });
  expect(connected.status, connected.text).toBe(200);
  const run = await api.post(`/integrations/cloud-accounts/${account.body.id}/discover`, undefined, { token });
  expect(run.status, run.text).toBe(202);
  await ref.stack.queues.drain();
}
