import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack';
import { client } from '../helpers/http';
import { createService, ownerWithEnv } from '../helpers/catalog';
import { follow } from '../helpers/live';

const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

describe('live changes of an environment (POST /live/ticket, the WebSocket)', () => {
  it('sends a service created, renamed and deleted through the API, in seq order, each item as its GET answers it', async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const svc = await createService(api, o.token, o.projectId, o.envId, { name: 'checkout' });
    const created = await live.next((m) => m.id === svc.id && m.op === 'created');
    expect(created).toMatchObject({ kind: 'service', item: svc });
    const renamed = await api.patch(`/services/${svc.id}`, { name: 'checkout-v2' }, { token: o.token });
    expect(renamed.status, renamed.text).toBe(200);
    const updated = await live.next((m) => m.id === svc.id && m.op === 'updated');
    const got = await api.get(`/services/${svc.id}`, { token: o.token });
    expect(updated.item).toEqual(got.body);
    expect((await api.delete(`/services/${svc.id}`, undefined, { token: o.token })).status).toBe(204);
    const deleted = await live.next((m) => m.id === svc.id && m.op === 'deleted');
    expect(deleted.item).toBeUndefined();
    expect([created.seq + 1, created.seq + 2]).toEqual([updated.seq, deleted.seq]);
    live.close();
  });
});
