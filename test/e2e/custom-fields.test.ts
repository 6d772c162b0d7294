import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { createFloor, createNetwork, createService, ownerWithEnv } from '../helpers/catalog.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const fieldsPath = (projectId: string) => `/projects/${projectId}/custom-fields`;

async function define(token: string, projectId: string, body: Record<string, unknown>) {
  const res = await api.post(fieldsPath(projectId), { applies_to: ['service'], ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((d) => d.loc.join('.'));

describe('custom field definitions', () => {
  it('are defined by the owner, listed by key for members, and refused to a viewer', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const made = await define(owner.token, projectId, {
      key: 'tier',
      label: 'Tier',
      type: 'select',
      choices: ['gold', 'silver'],
      applies_to: ['service', 'network', 'service'],
      default: 'silver',
    });
    expect(made).toMatchObject({
      key: 'tier',
      type: 'select',
      applies_to: ['service', 'network'],
      required: false,
      default: 'silver',
      status: 'active',
    });
    await define(owner.token, projectId, { key: 'cost_centre', label: 'Cost centre', type: 'text' });
    const viewer = await signUp(api);
    await grantRole(api, owner.token, envId, viewer.id, 'viewer');
    const list = await api.get(fieldsPath(projectId), { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.map((d: { key: string }) => d.key)).toEqual(['cost_centre', 'tier']);
    const refused = await api.post(
      fieldsPath(projectId),
      { key: 'x', label: 'X', type: 'text', applies_to: ['service'] },
      { token: viewer.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Project owner required' });
    const stranger = await signUp(api);
    expect((await api.get(fieldsPath(projectId), { token: stranger.token })).status).toBe(404);
  });

  it.each([
    [{ key: 'Bad', label: 'x', type: 'text' }, 'body.key'],
    [{ key: 'a'.repeat(41), label: 'x', type: 'text' }, 'body.key'],
    [{ key: 'k', label: 'x', type: 'colour' }, 'body.type'],
    [{ key: 'k', label: 'x', type: 'text', applies_to: [] }, 'body.applies_to'],
    [{ key: 'k', label: 'x', type: 'text', applies_to: ['group'] }, 'body.applies_to.0'],
    [{ key: 'k', label: 'x', type: 'select' }, 'body.choices'],
    [{ key: 'k', label: 'x', type: 'select', choices: ['a', 'a'] }, 'body.choices'],
    [{ key: 'k', label: 'x', type: 'select', choices: Array.from({ length: 201 }, (_, i) => `c${i}`) }, 'body.choices'],
    [{ key: 'k', label: 'x', type: 'number', choices: ['a'] }, 'body.choices'],
    [{ key: 'k', label: 'x', type: 'number', pattern: '^a$' }, 'body.pattern'],
    [{ key: 'k', label: 'x', type: 'text', pattern: '(a)\\1' }, 'body.pattern'],
    [{ key: 'k', label: 'x', type: 'text', pattern: '(?=a)' }, 'body.pattern'],
    [{ key: 'k', label: 'x', type: 'text', pattern: 'a'.repeat(201) }, 'body.pattern'],
    [{ key: 'k', label: 'x', type: 'boolean', min: 1 }, 'body.min'],
    [{ key: 'k', label: 'x', type: 'number', min: 5, max: 1 }, 'body.max'],
    [{ key: 'k', label: 'x', type: 'text', max: 100000 }, 'body.max'],
    [{ key: 'k', label: 'x', type: 'number', default: 'ten' }, 'body.default'],
    [{ key: 'k', label: 'x', type: 'select', choices: ['a'], default: 'b' }, 'body.default'],
    [{ key: 'k', label: 'x', type: 'text', pattern: '^[A-Z]+$', default: 'abc' }, 'body.default'],
  ])('refuse a bad definition %j with 422 naming %s', async (body, loc) => {
    const { owner, projectId } = await ownerWithEnv(api);
    const res = await api.post(fieldsPath(projectId), { applies_to: ['service'], ...body }, { token: owner.token });
    expect(res.status, res.text).toBe(422);
    expect(locs(res.body)).toContain(loc);
  });

  it('run a pattern under a linear-time engine: a catastrophic one answers at once', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    await define(owner.token, projectId, { key: 'code', label: 'Code', type: 'text', pattern: '^(a+)+$' });
    const res = await api.post(
      '/services',
      { name: 'evil', project_id: projectId, environment_id: envId, custom_fields: { code: `${'a'.repeat(400)}b` } },
      { token: owner.token },
    );
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.custom_fields.code']);
  });

  it('refuse a duplicate key with 409, and a 51st definition with 422, also under concurrent requests', async () => {
    const { owner, projectId } = await ownerWithEnv(api);
    await define(owner.token, projectId, { key: 'dup', label: 'D', type: 'text' });
    const again = await api.post(
      fieldsPath(projectId),
      { key: 'dup', label: 'D', type: 'number', applies_to: ['network'] },
      { token: owner.token },
    );
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'A custom field with this key already exists in this project' });
    const results = await Promise.all(
      Array.from({ length: 56 }, (_, i) =>
        api.post(
          fieldsPath(projectId),
          { key: `f${i}`, label: `F${i}`, type: 'text', applies_to: ['service'] },
          { token: owner.token },
        ),
      ),
    );
    // Lost races answer 409 with Retry-After (clients retry); none ever passes the limit.
    const made = results.filter((r) => r.status === 201).length;
    expect(made).toBeLessThanOrEqual(49);
    for (const r of results.filter((r) => r.status !== 201)) expect([409, 422], r.text).toContain(r.status);
    for (let i = 0; ; i++) {
      const res = await api.post(
        fieldsPath(projectId),
        { key: `g${i}`, label: 'G', type: 'text', applies_to: ['service'] },
        { token: owner.token },
      );
      if (res.status === 422) {
        expect(res.body.detail[0].msg).toBe('A project has at most 50 custom fields');
        break;
      }
      expect(res.status, res.text).toBe(201);
    }
    const list = await api.get(fieldsPath(projectId), { token: owner.token });
    expect(list.body).toHaveLength(50);
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        api.post(
          fieldsPath(projectId),
          { key: 'same', label: 'S', type: 'text', applies_to: ['service'] },
          { token: owner.token },
        ),
      ),
    );
    expect(racing.every((r) => r.status === 422 || r.status === 409)).toBe(true);
  });
});

describe('custom field values', () => {
  it('are checked per type on services, floors and networks, with defaults on create and a merge on update', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const t = owner.token;
    await define(t, projectId, {
      key: 'tier',
      label: 'Tier',
      type: 'select',
      choices: ['gold', 'silver'],
      default: 'silver',
      applies_to: ['service', 'service_floor', 'network'],
    });
    await define(t, projectId, { key: 'size', label: 'Size', type: 'number', min: 1, max: 10 });
    await define(t, projectId, { key: 'on_call', label: 'On call', type: 'boolean' });
    await define(t, projectId, { key: 'since', label: 'Since', type: 'date' });
    await define(t, projectId, { key: 'runbook', label: 'Runbook', type: 'url' });
    await define(t, projectId, { key: 'teams', label: 'Teams', type: 'multiselect', choices: ['a', 'b', 'c'] });
    await define(t, projectId, { key: 'code', label: 'Code', type: 'text', pattern: '[A-Z]{2}-\\d+', max: 8 });
    const service = await createService(api, t, projectId, envId, {
      custom_fields: {
        size: 3,
        on_call: true,
        since: '2026-02-28',
        runbook: 'https://wiki/x',
        teams: ['a', 'b', 'a'],
        code: 'AB-12',
      },
    });
    expect(service.custom_fields).toEqual({
      size: 3,
      on_call: true,
      since: '2026-02-28',
      runbook: 'https://wiki/x',
      teams: ['a', 'b'],
      code: 'AB-12',
      tier: 'silver',
    });
    const floor = await createFloor(api, t, projectId, envId);
    expect(floor.custom_fields).toEqual({ tier: 'silver' });
    const network = await createNetwork(api, t, projectId, envId, { custom_fields: { tier: 'gold' } });
    expect(network.custom_fields).toEqual({ tier: 'gold' });

    for (const [values, loc] of [
      [{ size: 'three' }, 'size'],
      [{ size: 11 }, 'size'],
      [{ on_call: 'yes' }, 'on_call'],
      [{ since: '2026-02-30' }, 'since'],
      [{ runbook: 'ftp://x' }, 'runbook'],
      [{ tier: 'bronze' }, 'tier'],
      [{ teams: ['d'] }, 'teams'],
      [{ code: 'ab-12' }, 'code'],
      [{ code: 'AB-123456' }, 'code'],
      [{ nope: 1 }, 'nope'],
    ] as const) {
      const res = await api.patch(`/services/${service.id}`, { custom_fields: values }, { token: t });
      expect(res.status, `${JSON.stringify(values)} ${res.text}`).toBe(422);
      expect(locs(res.body)).toEqual([`body.custom_fields.${loc}`]);
    }
    // A field of services only is unknown on a floor.
    const onFloor = await api.patch(`/service-floors/${floor.id}`, { custom_fields: { size: 2 } }, { token: t });
    expect(onFloor.status).toBe(422);
    expect(locs(onFloor.body)).toEqual(['body.custom_fields.size']);

    const merged = await api.patch(`/services/${service.id}`, { custom_fields: { size: 4, code: null } }, { token: t });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.custom_fields).toEqual({
      size: 4,
      on_call: true,
      since: '2026-02-28',
      runbook: 'https://wiki/x',
      teams: ['a', 'b'],
      tier: 'silver',
    });
    expect((await api.get(`/services/${service.id}`, { token: t })).body.custom_fields).toEqual(
      merged.body.custom_fields,
    );
    const net = await api.patch(`/networks/${network.id}`, { custom_fields: { tier: null } }, { token: t });
    expect(net.status, net.text).toBe(200);
    expect(net.body.custom_fields).toEqual({});
  });

  it('refuse a missing required value, and a text longer than the cap', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    await define(owner.token, projectId, { key: 'owner_team', label: 'Team', type: 'text', required: true });
    const missing = await api.post(
      '/services',
      { name: 's', project_id: projectId, environment_id: envId },
      { token: owner.token },
    );
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'custom_fields', 'owner_team'], msg: 'Field required', type: 'value_error' },
    ]);
    const huge = await api.post(
      '/services',
      { name: 's', project_id: projectId, environment_id: envId, custom_fields: { owner_team: 'x'.repeat(501) } },
      { token: owner.token },
    );
    expect(huge.status).toBe(422);
    const made = await createService(api, owner.token, projectId, envId, { custom_fields: { owner_team: 'ops' } });
    const cleared = await api.patch(
      `/services/${made.id}`,
      { custom_fields: { owner_team: null } },
      { token: owner.token },
    );
    expect(cleared.status).toBe(422);
  });

  it("refuse another project's definitions", async () => {
    const a = await ownerWithEnv(api);
    const b = await ownerWithEnv(api);
    await define(a.token, a.projectId, { key: 'secret_tier', label: 'T', type: 'text' });
    const res = await api.post(
      '/services',
      { name: 's', project_id: b.projectId, environment_id: b.envId, custom_fields: { secret_tier: 'x' } },
      { token: b.token },
    );
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.custom_fields.secret_tier']);
  });
});
