import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { useResolver } from '#domain/webhooks';

/** Which changes the audit log records, kind by kind (one entry per change, in its transaction). */
// An invitation is resent here within the minute of its creation, which its mail cooldown would refuse (tested in invites-resend-cooldown).
const ref = useTestStack({ INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE: '10' });
const api = client(() => ref.stack.url);

async function entriesOf(token: string, projectId: string, entityId: string) {
  const res = await api.get(`/projects/${projectId}/audit-log?entity_id=${entityId}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>[];
}
/** Webhook targets resolve through a table here (no network in tests). */
useResolver(async (host) => (host === 'receiver.example' ? [{ address: '93.184.216.34', family: 4 }] : []));

const ok = async (p: Promise<{ status: number; text: string }>, status = 200) => {
  const res = await p;
  expect(res.status, res.text).toBe(status);
  return res as Awaited<typeof p> & { body: any };
};

describe('audit coverage of the catalog', () => {
  it('service floors: create, update, delete (with the services it detached)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'vm-1', cpu: 2 });
    const svc = await createService(api, token, projectId, envId, { service_floor_id: floor.id });
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 4 }, { token }));
    await ok(api.delete(`/service-floors/${floor.id}`, undefined, { token }), 204);
    const entries = await entriesOf(token, projectId, floor.id);
    expect(entries.map((e) => e.action)).toEqual(['floor.delete', 'floor.update', 'floor.create']);
    expect(entries[1]).toMatchObject({
      before: { cpu: 2 },
      after: { cpu: 4 },
      entity_type: 'floor',
      environment_id: envId,
    });
    expect(entries[2].after).toMatchObject({ hostname: 'vm-1', cpu: 2, floor_type: 'vm' });
    expect(entries[0].summary).toEqual({ detached_service_ids: [svc.id] });
  });

  it('networks and attachments: create, update, delete; replacing a service’s networks', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const net = await createNetwork(api, token, projectId, envId, { name: 'lan' });
    const svc = await createService(api, token, projectId, envId);
    await ok(api.patch(`/networks/${net.id}`, { name: 'lan-2' }, { token }));
    await ok(api.patch(`/attachments/services/${svc.id}/networks`, { network_ids: [net.id] }, { token }));
    await ok(api.patch(`/attachments/services/${svc.id}/networks`, { network_ids: [net.id] }, { token })); // no change: no entry
    await ok(api.delete(`/networks/${net.id}`, undefined, { token }), 204);
    const netEntries = await entriesOf(token, projectId, net.id);
    expect(netEntries.map((e) => e.action)).toEqual(['network.delete', 'network.update', 'network.create']);
    expect(netEntries[1]).toMatchObject({ before: { name: 'lan' }, after: { name: 'lan-2' } });
    const svcEntries = await entriesOf(token, projectId, svc.id);
    expect(svcEntries.map((e) => e.action)).toEqual(['attachment.update', 'service.create']);
    expect(svcEntries[0]).toMatchObject({
      entity_type: 'attachment',
      before: { network_ids: [] },
      after: { network_ids: [net.id] },
      summary: { holder: 'service' },
    });
  });

  it('connections, chains and links: create, update, delete; a batch is one chain entry listing its connections', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    const [a, b, c] = [
      await createService(api, token, projectId, envId),
      await createService(api, token, projectId, envId),
      await createService(api, token, projectId, envId),
    ];
    const conn = (
      await ok(
        api.post(
          '/service-connections',
          { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id },
          { token },
        ),
        201,
      )
    ).body;
    await ok(api.patch(`/service-connections/${conn.id}`, { direction: 'a_to_b' }, { token }));
    // The same values again change nothing: no entry (the three below are all there are).
    await ok(api.patch(`/service-connections/${conn.id}`, { direction: 'a_to_b' }, { token }));
    await ok(api.delete(`/service-connections/${conn.id}`, undefined, { token }), 204);
    expect((await entriesOf(token, projectId, conn.id)).map((e) => [e.action, e.before, e.after])).toEqual([
      ['connection.delete', expect.objectContaining({ direction: 'a_to_b' }), null],
      ['connection.update', { direction: 'none' }, { direction: 'a_to_b' }],
      ['connection.create', null, expect.objectContaining({ a_id: a.id, b_id: b.id })],
    ]);

    const batch = (
      await ok(
        api.post(
          '/service-connections/batch',
          {
            ...scope,
            group_kind: 'chain',
            items: [
              { a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id },
              { a_type: 'service', a_id: b.id, b_type: 'service', b_id: c.id },
            ],
          },
          { token },
        ),
        201,
      )
    ).body;
    const chainId = batch[0].chain_id;
    await ok(api.patch(`/service-connections/chains/${chainId}`, { name: 'path' }, { token }));
    await ok(api.delete(`/service-connections/chains/${chainId}`, undefined, { token }), 204);
    const chain = await entriesOf(token, projectId, chainId);
    expect(chain.map((e) => e.action)).toEqual(['chain.delete', 'chain.update', 'chain.create']);
    expect(chain[2].after).toEqual({
      group_kind: 'chain',
      connections: batch.map((x: any) => ({ id: x.id, direction: 'none', name: null })),
    });
    expect(chain[1].after.connections.every((x: any) => x.name === 'path')).toBe(true);

    const link = (
      await ok(api.post('/service-links', { ...scope, from_service_id: a.id, to_service_id: c.id }, { token }), 201)
    ).body;
    await ok(api.delete(`/service-links/${link.id}`, undefined, { token }), 204);
    expect((await entriesOf(token, projectId, link.id)).map((e) => e.action)).toEqual(['link.delete', 'link.create']);
  });

  it('no entry for a refused catalog write (a duplicate network name, a duplicate connection)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    await createNetwork(api, token, projectId, envId, { name: 'dup' });
    const [a, b] = [
      await createService(api, token, projectId, envId),
      await createService(api, token, projectId, envId),
    ];
    await ok(
      api.post(
        '/service-connections',
        { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id },
        { token },
      ),
      201,
    );
    const before = (await api.get(`/projects/${projectId}/audit-log?limit=500`, { token })).body;
    expect((await api.post('/networks', { ...scope, name: 'dup', cidr: '10.1.0.0/24' }, { token })).status).not.toBe(
      201,
    );
    expect(
      (
        await api.post(
          '/service-connections',
          { ...scope, a_type: 'service', a_id: a.id, b_type: 'service', b_id: b.id },
          { token },
        )
      ).status,
    ).toBe(400);
    expect((await api.get(`/projects/${projectId}/audit-log?limit=500`, { token })).body).toEqual(before);
  });

  it("keeps an entity's latest entry when a floor's previous one starts expiring", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId);
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 1 }, { token }));
    await ok(api.patch(`/service-floors/${floor.id}`, { cpu: 2 }, { token }));
    const [latest, previous, creation] = await entriesOf(token, projectId, floor.id);
    const raw = async (e: any) => readItem(keys.auditEntry(projectId, e.at, e.id));
    expect((await raw(latest))!.expires_at_epoch).toBeUndefined();
    expect((await raw(previous))!.expires_at_epoch).toBe(Math.floor(Date.parse(previous.at) / 1000) + 90 * 86400);
    expect((await raw(creation))!.expires_at_epoch).toBeUndefined();
  });
});

describe('audit coverage of tenancy', () => {
  const actions = async (token: string, projectId: string, query: string) => {
    const res = await api.get(`/projects/${projectId}/audit-log?${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return (res.body as Record<string, any>[]).map((e) => e.action);
  };

  it('projects and environments: create, update, delete (a deleted project keeps its entries)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await ok(api.patch(`/projects/${projectId}/settings`, { cost_calc_enabled: true }, { token }));
    await ok(api.patch(`/environments/${envId}`, { name: 'prod-2' }, { token }));
    const staging = (await ok(api.post('/environments', { name: 'staging', project_id: projectId }, { token }), 201))
      .body;
    await ok(api.delete(`/environments/${staging.id}`, undefined, { token }), 204);
    expect(await actions(token, projectId, `entity_id=${projectId}`)).toEqual(['project.update', 'project.create']);
    const project = await entriesOf(token, projectId, projectId);
    expect(project[0]).toMatchObject({
      before: { cost_calc_enabled: false },
      after: { cost_calc_enabled: true },
      environment_id: null,
    });
    expect(project[1].after).not.toHaveProperty('owner_id');
    expect(await actions(token, projectId, `entity_id=${envId}`)).toEqual(['environment.update', 'environment.create']);
    expect(await actions(token, projectId, `entity_id=${staging.id}`)).toEqual([
      'environment.delete',
      'environment.create',
    ]);
    await ok(api.delete(`/projects/${projectId}`, undefined, { token }), 204);
    const raw = await ddb().send(
      new QueryCommand({
        TableName: config().TABLE_NAME,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.auditPK(projectId) },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    expect(raw.Items![0]).toMatchObject({ action: 'project.delete', entity_id: projectId });
  });

  it('groups and subgroups, environment roles, project users', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    const group = (await ok(api.post('/groups', { ...scope, name: 'g' }, { token }), 201)).body;
    const sub = (await ok(api.post('/subgroups', { ...scope, group_id: group.id, name: 's' }, { token }), 201)).body;
    await ok(api.patch(`/subgroups/${sub.id}`, { description: 'd' }, { token }));
    await ok(api.patch(`/groups/${group.id}`, { name: 'g2' }, { token }));
    await ok(api.delete(`/groups/${group.id}`, undefined, { token }), 204);
    const groupEntries = await entriesOf(token, projectId, group.id);
    expect(groupEntries.map((e) => e.action)).toEqual(['group.delete', 'group.update', 'group.create']);
    expect(groupEntries[0].summary).toEqual({ deleted_subgroup_ids: [sub.id] });
    expect(groupEntries[1]).toMatchObject({ before: { name: 'g' }, after: { name: 'g2' } });
    expect(await actions(token, projectId, `entity_id=${sub.id}`)).toEqual(['subgroup.update', 'subgroup.create']);

    const user = await signUp(api);
    const role = await grantRole(api, token, envId, user.id, 'viewer');
    await ok(api.post(`/environments/${envId}/roles`, { user_id: user.id, role: 'viewer' }, { token }), 201); // same role: no entry
    await ok(api.post(`/environments/${envId}/roles`, { user_id: user.id, role: 'manager' }, { token }), 201);
    await ok(api.delete(`/environments/${envId}/roles/${user.id}`, undefined, { token }), 204);
    const roleEntries = await entriesOf(token, projectId, role.id);
    expect(roleEntries.map((e) => [e.action, e.before, e.after])).toEqual([
      ['env_role.delete', expect.objectContaining({ role: 'manager' }), null],
      ['env_role.update', { role: 'viewer' }, { role: 'manager' }],
      ['env_role.create', null, expect.objectContaining({ role: 'viewer', user_id: user.id })],
    ]);
    expect(roleEntries[2].summary).toEqual({ made_member: true });

    const person = (
      await ok(
        api.post('/project-users', { project_id: projectId, name: 'Ada', email: 'ada@example.com' }, { token }),
        201,
      )
    ).body;
    await ok(api.patch(`/project-users/${person.id}`, { job_title: 'CTO' }, { token }));
    await ok(api.delete(`/project-users/${person.id}`, undefined, { token }), 204);
    const people = await entriesOf(token, projectId, person.id);
    expect(people.map((e) => e.action)).toEqual(['project_user.delete', 'project_user.update', 'project_user.create']);
    expect(people[1]).toMatchObject({ before: { job_title: null }, after: { job_title: 'CTO' } });
  });

  it('custom roles and their assignments', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const user = await signUp(api);
    const role = (
      await ok(
        api.post(`/projects/${projectId}/custom-roles`, { name: 'ops', permissions: ['services.view'] }, { token }),
        201,
      )
    ).body;
    await ok(
      api.patch(
        `/projects/${projectId}/custom-roles/${role.id}`,
        { permissions: ['services.view', 'audit.read'] },
        { token },
      ),
    );
    const assignment = (
      await ok(
        api.post(`/projects/${projectId}/custom-roles/${role.id}/assignments`, { user_id: user.id }, { token }),
        201,
      )
    ).body;
    await ok(
      api.post(
        `/projects/${projectId}/custom-roles/${role.id}/assignments`,
        { user_id: user.id, environment_id: envId },
        { token },
      ),
      201,
    );
    await ok(
      api.delete(`/projects/${projectId}/custom-roles/${role.id}/assignments/${user.id}`, undefined, { token }),
      204,
    );
    await ok(api.delete(`/projects/${projectId}/custom-roles/${role.id}`, undefined, { token }), 204);
    const roleEntries = await entriesOf(token, projectId, role.id);
    expect(roleEntries.map((e) => e.action)).toEqual([
      'custom_role.delete',
      'custom_role.update',
      'custom_role.create',
    ]);
    expect(roleEntries[1]).toMatchObject({
      before: { permissions: ['services.view'] },
      after: { permissions: ['services.view', 'audit.read'] },
    });
    const assigned = await entriesOf(token, projectId, assignment.id);
    expect(assigned.map((e) => [e.action, e.environment_id])).toEqual([
      ['custom_role_assignment.delete', envId],
      ['custom_role_assignment.update', null],
      ['custom_role_assignment.create', null],
    ]);
    expect(assigned[1]).toMatchObject({ before: { environment_id: null }, after: { environment_id: envId } });
  });

  it('invitations: create, resend, revoke (never the link’s token hash), and acceptance by the invited account', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const invited = await signUp(api);
    const first = (
      await ok(api.post('/invites', { project_id: projectId, invited_email: 'someone@example.com' }, { token }), 201)
    ).body;
    await ok(api.post(`/invites/${first.id}/resend`, undefined, { token }));
    await ok(api.delete(`/invites/${first.id}`, undefined, { token }), 204);
    const entries = await entriesOf(token, projectId, first.id);
    expect(entries.map((e) => e.action)).toEqual(['invitation.revoke', 'invitation.resend', 'invitation.create']);
    expect(JSON.stringify(entries)).not.toMatch(/token|hash/);
    expect(entries[2].after).toMatchObject({ invited_email: 'someone@example.com', accepted: false });

    const second = (
      await ok(api.post('/invites', { project_id: projectId, invited_email: invited.email }, { token }), 201)
    ).body;
    await ok(api.post(`/invites/${second.id}/accept`, undefined, { token: invited.token }), 204);
    const accepted = await entriesOf(token, projectId, second.id);
    expect(accepted.map((e) => e.action)).toEqual(['invitation.accept', 'invitation.create']);
    expect(accepted[0]).toMatchObject({
      actor: { type: 'account', id: invited.id, email: invited.email },
      after: { accepted: true, accepted_by_user_id: invited.id },
    });
  });
});

describe('audit coverage of archive and restore', () => {
  it('archiving and restoring a service and an environment are entries of each, by the caller', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const other = (await ok(api.post('/environments', { name: 'old', project_id: projectId }, { token }), 201)).body;
    const svc = await createService(api, token, projectId, envId);
    await ok(api.post('/me/mark-archived', { services: [svc.id], environments: [other.id] }, { token }));
    await ok(api.post('/me/unarchive', { services: [svc.id] }, { token }));
    const entries = await entriesOf(token, projectId, svc.id);
    expect(entries.map((e) => e.action)).toEqual(['service.restore', 'service.archive', 'service.create']);
    expect(entries[1]).toMatchObject({
      before: { archived_at: null },
      after: { archived_at: expect.any(String) },
      actor: { id: owner.id },
    });
    expect(entries[0]).toMatchObject({
      before: { archived_at: entries[1].after.archived_at },
      after: { archived_at: null },
    });
    expect((await entriesOf(token, projectId, other.id)).map((e) => e.action)).toEqual([
      'environment.archive',
      'environment.create',
    ]);
  });
});

describe('audit coverage of webhooks', () => {
  it('register, change, rotate the secret, delete: entries without any secret', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const hooks = `/projects/${projectId}/webhooks`;
    const created = (
      await ok(api.post(hooks, { url: 'https://receiver.example/hook', events: ['service.created'] }, { token }), 201)
    ).body;
    await ok(api.patch(`${hooks}/${created.id}`, { description: 'ops' }, { token }));
    const rotated = (await ok(api.post(`${hooks}/${created.id}/rotate-secret`, undefined, { token }))).body;
    await ok(api.delete(`${hooks}/${created.id}`, undefined, { token }), 204);
    const entries = await entriesOf(token, projectId, created.id);
    expect(entries.map((e) => e.action)).toEqual([
      'webhook.delete',
      'webhook.rotate',
      'webhook.update',
      'webhook.create',
    ]);
    expect(entries[2]).toMatchObject({ before: { description: null }, after: { description: 'ops' } });
    expect(entries[1]).toMatchObject({ before: null, after: null, summary: { rotation_grace_hours: 24 } });
    const text = JSON.stringify(entries);
    expect(text).not.toMatch(/secret/i);
    for (const s of [created.secret, rotated.secret]) if (s) expect(text).not.toContain(s);
  });
});

describe('account-level entries (the account’s own audit partition)', () => {
  const accountLog = async (userId: string) =>
    (
      await ddb().send(
        new QueryCommand({
          TableName: config().TABLE_NAME,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.accountAuditPK(userId) },
          ScanIndexForward: false,
        }),
      )
    ).Items ?? [];

  it('API keys: creation and revocation, never the key nor its hash', async () => {
    const { owner, token } = await ownerWithEnv(api);
    const created = (await ok(api.post('/me/api-keys', { name: 'ci' }, { token }), 201)).body;
    await ok(api.delete(`/me/api-keys/${created.id}`, undefined, { token }), 204);
    const entries = await accountLog(owner.id);
    expect(entries.map((e) => e.action)).toEqual(['api_key.revoke', 'api_key.create']);
    expect(entries[1]).toMatchObject({
      entity_id: created.id,
      project_id: null,
      account_id: owner.id,
      actor: { id: owner.id },
      after: { name: 'ci', key_set: 'api' },
    });
    const text = JSON.stringify(entries);
    expect(text).not.toMatch(/key_hash/);
    if (created.key) expect(text).not.toContain(created.key);
  });

  it('a plan change (a confirmed downgrade) is an entry with the plans before and after', async () => {
    const { owner, token } = await ownerWithEnv(api);
    const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
    const starter = plans.find((p) => p.name === 'Starter' && p.interval === 'monthly')!;
    await ok(api.post('/me/downgrade/confirm', { to_plan_id: starter.id }, { token }));
    const [entry] = await accountLog(owner.id);
    expect(entry).toMatchObject({
      action: 'subscription.plan_change',
      before: { plan_name: 'Team' },
      after: { plan_id: starter.id, plan_name: 'Starter' },
      actor: { id: owner.id },
    });
  });
});
