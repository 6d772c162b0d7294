import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { captureEvents, createFloor, createNetwork, createService, ownerWithEnv } from '../helpers/catalog.ts';
import { ddb } from '#shared/clients';

const ref = useTestStack();
const api = client(() => ref.stack.url);
const events = captureEvents();
const fieldsPath = (projectId: string) => `/projects/${projectId}/custom-fields`;

async function define(token: string, projectId: string, body: Record<string, unknown>) {
  const res = await api.post(fieldsPath(projectId), { applies_to: ['service'], ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('custom field changes', () => {
  it('refuse a change existing values would break with 409 and their count', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await define(token, projectId, {
      key: 'tier',
      label: 'Tier',
      type: 'select',
      choices: ['gold', 'silver', 'bronze'],
    });
    await createService(api, token, projectId, envId, { custom_fields: { tier: 'gold' } });
    await createService(api, token, projectId, envId, { custom_fields: { tier: 'gold' } });
    await createService(api, token, projectId, envId, { custom_fields: { tier: 'silver' } });
    await createService(api, token, projectId, envId);
    const path = `${fieldsPath(projectId)}/tier`;
    const removed = await api.patch(path, { choices: ['silver', 'bronze'] }, { token });
    expect(removed.status).toBe(409);
    expect(removed.body).toEqual({ detail: 'This change would break the values of 2 items', count: 2 });
    const typed = await api.patch(path, { type: 'number' }, { token });
    expect(typed.status).toBe(409);
    expect(typed.body.count).toBe(3);
    const required = await api.patch(path, { required: true }, { token });
    expect(required.status).toBe(409);
    expect(required.body.count).toBe(1);
    const withDefault = await api.patch(path, { required: true, default: 'bronze', label: 'Service tier' }, { token });
    expect(withDefault.status, withDefault.text).toBe(200);
    expect(withDefault.body).toMatchObject({ required: true, default: 'bronze', label: 'Service tier' });
    const unused = await api.patch(path, { choices: ['gold', 'silver'], default: 'gold' }, { token });
    expect(unused.status, unused.text).toBe(200);
  });

  it('filter lists by cf.<key> (repeatable: any; multiselect: any held)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await define(token, projectId, {
      key: 'tier',
      label: 'Tier',
      type: 'select',
      choices: ['gold', 'silver'],
      applies_to: ['service', 'network'],
    });
    await define(token, projectId, { key: 'teams', label: 'Teams', type: 'multiselect', choices: ['a', 'b', 'c'] });
    const gold = await createService(api, token, projectId, envId, {
      name: 'a-gold',
      custom_fields: { tier: 'gold', teams: ['a', 'b'] },
    });
    const silver = await createService(api, token, projectId, envId, {
      name: 'b-silver',
      custom_fields: { tier: 'silver', teams: ['c'] },
    });
    await createService(api, token, projectId, envId, { name: 'c-none' });
    const names = async (query: string) => {
      const res = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&${query}`, { token });
      expect(res.status, res.text).toBe(200);
      return res.body.map((s: { name: string }) => s.name);
    };
    expect(await names('cf.tier=gold')).toEqual([gold.name]);
    expect(await names('cf.tier=gold&cf.tier=silver')).toEqual([gold.name, silver.name]);
    expect(await names('cf.teams=b&cf.teams=c')).toEqual([gold.name, silver.name]);
    expect(await names('cf.teams=a&cf.tier=silver')).toEqual([]);
    expect(await names('cf.tier=gold&limit=1&offset=0')).toEqual([gold.name]);
    const bad = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&cf.Bad=1`, { token });
    expect(bad.status).toBe(422);
    const net = await createNetwork(api, token, projectId, envId, { custom_fields: { tier: 'gold' } });
    const nets = await api.get(`/networks?project_id=${projectId}&environment_id=${envId}&cf.tier=gold`, { token });
    expect(nets.body.map((n: { id: string }) => n.id)).toEqual([net.id]);
  });

  it('delete a definition as a job that takes its values off every item', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await define(token, projectId, { key: 'cost', label: 'Cost', type: 'number' });
    const a = await createService(api, token, projectId, envId, { custom_fields: { cost: 3 } });
    const b = await createService(api, token, projectId, envId, { custom_fields: { cost: 4 } });
    const res = await api.delete(`${fieldsPath(projectId)}/cost`, undefined, { token });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ key: 'cost', kind: 'delete', status: 'queued' });
    let job = res.body;
    for (let i = 0; i < 100 && job.status !== 'succeeded' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await api.get(`${fieldsPath(projectId)}/jobs/${res.body.id}`, { token })).body;
    }
    expect(job).toMatchObject({ status: 'succeeded', items_updated: 2 });
    for (const s of [a, b]) expect((await api.get(`/services/${s.id}`, { token })).body.custom_fields).toEqual({});
    expect((await api.get(fieldsPath(projectId), { token })).body).toEqual([]);
    await define(token, projectId, { key: 'cost', label: 'Cost again', type: 'text' });
  });

  it('write an audit entry for each change of a definition (create, update, delete), none for a refused or empty one', async () => {
    const { token, projectId, envId, owner } = await ownerWithEnv(api);
    await define(token, projectId, { key: 'tier', label: 'Tier', type: 'select', choices: ['gold', 'silver'] });
    await createService(api, token, projectId, envId, { custom_fields: { tier: 'silver' } });
    const path = `${fieldsPath(projectId)}/tier`;
    expect((await api.patch(path, { label: 'Service tier', required: true, default: 'gold' }, { token })).status).toBe(
      200,
    );
    expect((await api.patch(path, { label: 'Service tier' }, { token })).status).toBe(200); // nothing changes
    expect((await api.patch(path, { choices: ['gold'] }, { token })).status).toBe(409); // would break a value
    expect((await api.delete(path, undefined, { token })).status).toBe(202);
    const log = await api.get(`/projects/${projectId}/audit-log?entity_type=custom_field`, { token });
    expect(log.status, log.text).toBe(200);
    expect(log.body.map((e: { action: string }) => e.action)).toEqual([
      'custom_field.delete',
      'custom_field.update',
      'custom_field.create',
    ]);
    const [deleted, updated, createdEntry] = log.body;
    for (const e of log.body)
      expect(e).toMatchObject({ entity_type: 'custom_field', entity_id: 'tier', project_id: projectId });
    expect(createdEntry.actor).toMatchObject({ type: 'account', email: owner.email });
    expect(createdEntry.after).toMatchObject({
      key: 'tier',
      label: 'Tier',
      field_type: 'select',
      choices: ['gold', 'silver'],
      applies_to: ['service'],
    });
    expect(updated.before).toEqual({ label: 'Tier', required: false, default: null });
    expect(updated.after).toEqual({ label: 'Service tier', required: true, default: 'gold' });
    expect(deleted.before).toMatchObject({ key: 'tier', label: 'Service tier', status: 'active' });
    expect(deleted.after).toBeNull();
    const history = await api.get(`/projects/${projectId}/audit-log?entity_id=tier`, { token });
    expect(history.status, history.text).toBe(200);
    expect(history.body.map((e: { id: string }) => e.id)).toEqual(log.body.map((e: { id: string }) => e.id));
  });

  it('carry values into audit entries and webhook data', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await define(token, projectId, {
      key: 'tier',
      label: 'Tier',
      type: 'text',
      applies_to: ['service', 'service_floor'],
    });
    const s = await createService(api, token, projectId, envId, { name: 'svc', custom_fields: { tier: 'one' } });
    expect((await api.patch(`/services/${s.id}`, { custom_fields: { tier: 'two' } }, { token })).status).toBe(200);
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'h1', custom_fields: { tier: 'f' } });
    const log = await api.get(`/projects/${projectId}/audit-log?entity_type=service`, { token });
    expect(log.status, log.text).toBe(200);
    const [upd, crt] = log.body;
    expect(crt.after.custom_fields).toEqual({ tier: 'one' });
    expect(upd.before).toEqual({ custom_fields: { tier: 'one' } });
    expect(upd.after).toEqual({ custom_fields: { tier: 'two' } });
    await ref.stack.queues.drain();
    const published = events.filter((e) => e.project_id === projectId).map((e) => e.event);
    expect(published.map((e) => e.type)).toEqual(['service.created', 'service.updated', 'floor.created']);
    expect(published[0].data).toMatchObject({ service_id: s.id, custom_fields: { tier: 'one' } });
    expect(published[1].data).toMatchObject({ custom_fields: { tier: 'two' }, changed: ['custom_fields'] });
    expect(published[2].data).toMatchObject({ service_floor_id: floor.id, custom_fields: { tier: 'f' } });
  });
});

type Transaction = { TransactItems?: { Put?: { Item?: { PK?: string; SK?: string } } }[] };

describe('a definition changed between a create reading it and writing', () => {
  it('the create is made again from a new read: a service, a server and a network each get 201', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await define(token, projectId, {
      key: 'team',
      label: 'Team',
      type: 'text',
      default: 'core',
      applies_to: ['service', 'service_floor', 'network'],
    });
    // The first write of each kind is beaten by a change of the definitions (its label: values stay valid).
    const beaten = new Set<string>();
    const hook = ddb().middlewareStack;
    hook.add(
      (next) => async (args) => {
        const sk = ((args.input as Transaction).TransactItems ?? [])
          .map((t) => t.Put?.Item)
          .find((i) => i?.PK === `PROJECT#${projectId}` && /^(SERVICE|FLOOR|NETWORK)#/.test(i.SK ?? ''))?.SK;
        const kind = sk?.split('#')[0];
        if (kind && !beaten.has(kind)) {
          beaten.add(kind);
          const res = await api.patch(`${fieldsPath(projectId)}/team`, { label: `Team ${kind}` }, { token });
          expect(res.status, res.text).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'changeDefinitionsBeforeCreate' },
    );
    try {
      const made = [
        await createService(api, token, projectId, envId),
        await createFloor(api, token, projectId, envId, { hostname: 'h1' }),
        await createNetwork(api, token, projectId, envId),
      ];
      expect([...beaten].sort()).toEqual(['FLOOR', 'NETWORK', 'SERVICE']);
      expect(made.map((m) => m.custom_fields)).toEqual([{ team: 'core' }, { team: 'core' }, { team: 'core' }]);
    } finally {
      hook.remove('changeDefinitionsBeforeCreate');
    }
  });
});
