import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { addFloor, addService, ownerWithEnv } from '../helpers/topology.ts';
import { ddb } from '#shared/clients';
import { countItemsRead } from '../bench/measure.ts';
import { backfillListings } from '#domain/catalog';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { deleteItem } from '#db/items';

/**
 * A server's delete finds the services on it from a listing of them (SERVICEREFBY#<env>#FLOOR.<id>),
 * not by reading every service of its environment: what it reads grows with the services on that
 * server, not with the environment.
 */
// Its backfill reads and counts the whole table: a stack of its own, not one shared with other files.
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

describe('DELETE /service-floors/{id}', () => {
  it('reads the services on the server only, however many the environment has; archived ones are detached too', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const token = owner.token;
    const floor = await addFloor(api, token, projectId, envId, 'host-1');
    const hosted = [
      await addService(api, token, projectId, envId, 'on-1', { service_floor_id: floor }),
      await addService(api, token, projectId, envId, 'on-2', { service_floor_id: floor }),
    ];
    const archived = await addService(api, token, projectId, envId, 'on-archived', { service_floor_id: floor });
    expect((await api.post('/me/mark-archived', { services: [archived] }, { token })).status).toBe(200);
    for (let i = 0; i < 40; i++) await addService(api, token, projectId, envId, `elsewhere-${i}`);
    const read = countItemsRead(ddb());
    read.reset();
    const res = await api.delete(`/service-floors/${floor}`, undefined, { token });
    expect(res.status, res.text).toBe(204);
    const items = read.byCommand() as Record<string, number>;
    // The caller and access (a handful), the server, its three services and their listing items, its edges: never the 40 others.
    expect(items.QueryCommand ?? 0).toBeLessThan(10);
    expect((items.QueryCommand ?? 0) + (items.BatchGetItemCommand ?? 0)).toBeLessThan(20);
    for (const id of hosted) {
      const s = await api.get(`/services/${id}`, { token });
      expect([s.body.service_floor_id, s.body.type]).toEqual([null, 'serverless']);
    }
    // The archived one comes back without the server.
    expect((await api.post('/me/unarchive', { services: [archived] }, { token })).status).toBe(200);
    expect((await api.get(`/services/${archived}`, { token })).body.service_floor_id).toBeNull();
    // Nothing of the server's range is left.
    expect(
      await queryPrefix(projectId, keys.listingPrefix('SERVICEREF', envId, keys.serviceRefPlace.floor(floor))),
    ).toEqual([]);
  });

  it('a table written before the listing gets it from the backfill, and the delete then detaches every service', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const token = owner.token;
    const floor = await addFloor(api, token, projectId, envId, 'old-host');
    const old = await addService(api, token, projectId, envId, 'old', { service_floor_id: floor });
    // As before the listing existed: no reference listing items; then the backfill (start and deploy run it) writes them.
    for (const item of await queryPrefix<{ PK: string; SK: string }>(projectId, 'SERVICEREFBY#'))
      await deleteItem({ PK: item.PK, SK: item.SK });
    await deleteItem(keys.migration('serviceref-listing'));
    expect((await backfillListings()).SERVICEREF?.written).toBeGreaterThanOrEqual(1);
    expect((await api.delete(`/service-floors/${floor}`, undefined, { token })).status).toBe(204);
    expect((await api.get(`/services/${old}`, { token })).body.service_floor_id).toBeNull();
  });
});
