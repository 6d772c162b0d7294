import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInfracat } from '../helpers/infracat-binary.ts';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, newEnv, ownerWithEnv } from '../helpers/catalog.ts';
import { grantRole } from '../helpers/tenancy.ts';

/**
 * GET /search: services, floors and networks by name and hostname tokens, tags, addresses and
 * network containment, best first, scoped as the lists are; the index moves with every write.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);

type Result = {
  kind: string;
  id: string;
  name: string;
  environment_id: string;
  match: { field: string; value: string };
};
const find = async (token: string, projectId: string, q: string, extra = '') => {
  const res = await api.get<{ results: Result[] }>(
    `/search?project_id=${projectId}&q=${encodeURIComponent(q)}${extra}`,
    { token },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.results;
};

describe('GET /search', () => {
  it('finds a service by its name, a token of it, a prefix, inside a token and by a tag, exact first', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const checkout = await createService(api, token, projectId, envId, {
      name: 'checkout-payments.api',
      tags: ['team-billing'],
    });
    const pay = await createService(api, token, projectId, envId, { name: 'pay' });
    await createService(api, token, projectId, envId, { name: 'unrelated' });

    const byName = await find(token, projectId, 'checkout-payments.api');
    expect(byName.map((r) => r.id)).toEqual([checkout.id]);
    expect(byName[0]).toEqual({
      kind: 'service',
      id: checkout.id,
      name: 'checkout-payments.api',
      environment_id: envId,
      match: { field: 'name', value: 'checkout-payments.api' },
    });
    // "pay": the service called so first, then the one with a token starting so.
    expect((await find(token, projectId, 'pay')).map((r) => r.id)).toEqual([pay.id, checkout.id]);
    expect((await find(token, projectId, 'PAYMENTS')).map((r) => r.id)).toEqual([checkout.id]);
    expect((await find(token, projectId, 'ments')).map((r) => r.id)).toEqual([checkout.id]);
    const byTag = await find(token, projectId, 'billing');
    expect(byTag).toEqual([
      expect.objectContaining({ id: checkout.id, match: { field: 'tags', value: 'team-billing' } }),
    ]);
    expect(await find(token, projectId, 'nothing-like-it')).toEqual([]);
  });

  it('finds floors by hostname and address, and networks holding an address (most specific first) or inside a CIDR', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, {
      hostname: 'db-01.eu.example.com',
      ip_address: '10.20.1.5',
      ip_addresses: ['192.168.7.9'],
    });
    const wide = await createNetwork(api, token, projectId, envId, { name: 'wide', cidr: '10.0.0.0/8' });
    const mid = await createNetwork(api, token, projectId, envId, { name: 'mid', cidr: '10.20.0.0/16' });
    const narrow = await createNetwork(api, token, projectId, envId, { name: 'narrow', cidr: '10.20.1.0/24' });
    const other = await createNetwork(api, token, projectId, envId, { name: 'other', cidr: '10.21.0.0/16' });

    expect((await find(token, projectId, 'db-01')).map((r) => [r.kind, r.id, r.match.field])).toEqual([
      ['service_floor', floor.id, 'hostname'],
    ]);
    const byAddress = await find(token, projectId, '10.20.1.5');
    expect(byAddress.map((r) => r.id)).toEqual([floor.id, narrow.id, mid.id, wide.id]);
    expect(byAddress[0].match).toEqual({ field: 'ip_address', value: '10.20.1.5' });
    expect(byAddress[1].match).toEqual({ field: 'cidr', value: '10.20.1.0/24' });
    expect((await find(token, projectId, '192.168.7.9'))[0]).toMatchObject({
      id: floor.id,
      name: 'db-01.eu.example.com',
      match: { field: 'ip_addresses', value: '192.168.7.9' },
    });
    const inside = await find(token, projectId, '10.20.0.0/16');
    expect(inside.map((r) => r.id)).toEqual([mid.id, narrow.id]);
    expect(inside.map((r) => r.id)).not.toContain(other.id);
    expect((await find(token, projectId, '10.20.1.5', '&kinds=network')).map((r) => r.id)).toEqual([
      narrow.id,
      mid.id,
      wide.id,
    ]);
  });

  it('validates before any lookup: q required, limit at most 100, kinds known', async () => {
    const outsider = await signUp(api);
    const project = '00000000-0000-4000-8000-000000000000';
    for (const query of [
      `project_id=${project}`,
      `project_id=${project}&q=a&limit=101`,
      `project_id=${project}&q=a&kinds=users`,
    ]) {
      const res = await api.get(`/search?${query}`, { token: outsider.token });
      expect(res.status, query).toBe(422);
    }
    expect((await api.get(`/search?project_id=${project}&q=a`, { token: outsider.token })).status).toBe(404);
  });

  it('answers at most limit results, and only what the caller can read', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    for (let i = 0; i < 5; i++) await createService(api, token, projectId, envId, { name: `alpha-${i}` });
    const there = await createService(api, token, projectId, otherEnv, { name: 'alpha-there' });
    expect(await find(token, projectId, 'alpha', '&limit=3')).toHaveLength(3);
    expect(await find(token, projectId, 'alpha')).toHaveLength(6);
    const inEnv = await find(token, projectId, 'alpha', `&environment_id=${envId}`);
    expect(inEnv).toHaveLength(5);
    expect(inEnv.map((r) => r.id)).not.toContain(there.id);
    // A deleted environment's services are gone with it, though they were not deleted one by one.
    expect((await api.delete(`/environments/${otherEnv}`, undefined, { token })).status).toBe(204);
    expect((await find(token, projectId, 'alpha')).map((r) => r.id)).not.toContain(there.id);
    // Someone of another project finds nothing of this one (the project's 404).
    const stranger = await signUp(api);
    expect((await api.get(`/search?project_id=${projectId}&q=alpha`, { token: stranger.token })).status).toBe(404);
  });

  it("a viewer of one environment finds in each environment exactly what that environment's lists show them", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const otherEnv = await newEnv(api, token, projectId);
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    const here = await createService(api, token, projectId, envId, { name: 'scoped-here' });
    const there = await createService(api, token, projectId, otherEnv, { name: 'scoped-there' });
    for (const [env, svc] of [
      [envId, here],
      [otherEnv, there],
    ] as const) {
      const listed = await api.get(`/services?project_id=${projectId}&environment_id=${env}`, {
        token: viewer.token,
      });
      const found = await find(viewer.token, projectId, 'scoped', `&environment_id=${env}`);
      // The list's answer decides: what it shows (200) is found, what it refuses (403) is neither found nor counted.
      expect(found.map((r) => r.id)).toEqual(listed.status === 200 ? [svc.id] : []);
    }
    const everywhere = (await find(viewer.token, projectId, 'scoped')).map((r) => r.environment_id);
    for (const env of everywhere)
      expect(
        (await api.get(`/services?project_id=${projectId}&environment_id=${env}`, { token: viewer.token })).status,
      ).toBe(200);
  });

  it('follows renames, tag changes and deletes at once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId, { name: 'before-name', tags: ['old'] });
    const patched = await api.patch(`/services/${s.id}`, { name: 'after-name', tags: ['new'] }, { token });
    expect(patched.status, patched.text).toBe(200);
    expect(await find(token, projectId, 'before')).toEqual([]);
    expect(await find(token, projectId, 'old')).toEqual([]);
    expect((await find(token, projectId, 'after')).map((r) => r.id)).toEqual([s.id]);
    expect((await find(token, projectId, 'new')).map((r) => r.id)).toEqual([s.id]);
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(204);
    expect(await find(token, projectId, 'after')).toEqual([]);
  });

  it("infracat search <q> prints the results, and -o json the answer's results", async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const svc = await createService(api, token, projectId, envId, { name: 'cli-findable' });
    const dir = await mkdtemp(join(tmpdir(), 'infracat-search-'));
    try {
      const env = {
        INFRACAT_URL: ref.stack.url,
        INFRACAT_EMAIL: owner.email,
        INFRACAT_PASSWORD: owner.password,
        INFRACAT_PROJECT: projectId,
      };
      const cli = (...args: string[]) => runInfracat(args, { configDir: join(dir, 'config'), env });
      const json = await cli('search', 'findable', '-o', 'json');
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([
        {
          kind: 'service',
          id: svc.id,
          name: 'cli-findable',
          environment_id: envId,
          match: { field: 'name', value: 'cli-findable' },
        },
      ]);
      const table = await cli('search', 'cli');
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/service\W+cli-findable\W+name: cli-findable/);
      const bad = await cli('search', 'x', '--limit', '101');
      expect(bad.code).not.toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("finds an item by its text, select and multiselect custom field values, not by a url's; a changed value at once", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (const def of [
      { key: 'team', type: 'text' },
      { key: 'tier', type: 'select', choices: ['gold', 'silver'] },
      { key: 'rota', type: 'multiselect', choices: ['emea-primary', 'amer-primary'] },
      { key: 'runbook', type: 'url' },
    ]) {
      const res = await api.post(
        `/projects/${projectId}/custom-fields`,
        { label: def.key, applies_to: ['service', 'service_floor'], ...def },
        { token },
      );
      expect(res.status, res.text).toBe(201);
    }
    const svc = await createService(api, token, projectId, envId, {
      name: 'ledger',
      custom_fields: {
        team: 'Payments Core',
        tier: 'gold',
        rota: ['emea-primary'],
        runbook: 'https://wiki.example.com/ledger',
      },
    });
    const floor = await createFloor(api, token, projectId, envId, { custom_fields: { team: 'Payments Edge' } });

    expect(await find(token, projectId, 'Payments Core')).toEqual([
      expect.objectContaining({ id: svc.id, match: { field: 'custom_fields.team', value: 'Payments Core' } }),
    ]);
    expect((await find(token, projectId, 'payments')).map((r) => r.id).sort()).toEqual([svc.id, floor.id].sort());
    expect((await find(token, projectId, 'gold')).map((r) => r.match)).toEqual([
      { field: 'custom_fields.tier', value: 'gold' },
    ]);
    expect((await find(token, projectId, 'emea')).map((r) => r.id)).toEqual([svc.id]);
    expect(await find(token, projectId, 'wiki')).toEqual([]);

    const changed = await api.patch(
      `/services/${svc.id}`,
      { custom_fields: { tier: 'silver', team: null } },
      { token },
    );
    expect(changed.status, changed.text).toBe(200);
    expect(await find(token, projectId, 'gold')).toEqual([]);
    expect((await find(token, projectId, 'Payments Core')).map((r) => r.id)).toEqual([]);
    expect((await find(token, projectId, 'silver')).map((r) => r.id)).toEqual([svc.id]);
  });
});
