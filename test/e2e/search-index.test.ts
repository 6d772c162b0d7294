import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { keys } from '#db/keys';
import { deleteItem, putItem } from '#db/items';
import { queryPrefix } from '#db/query';
import { appContext } from '#shared/context';
import { ddb } from '#shared/clients';
import { applyImport, buildExportDocument, planImport } from '#domain/impex';
import { reindexSearch, searchEntries } from '#domain/catalog';
import { createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * The search index moves with every write path (archive, restore, import, concurrent renames) and
 * `reindexSearch` (`npm run admin -- reindex-search`) rebuilds it. The rebuild reads the whole table:
 * a stack of its own.
 */
const ref = useTestStack({}, { ownStack: true });
const api = client(() => ref.stack.url);

const ids = async (token: string, projectId: string, q: string) => {
  const res = await api.get(`/search?project_id=${projectId}&q=${encodeURIComponent(q)}&limit=100`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body.results as { id: string }[]).map((r) => r.id).sort();
};
/** The environment's index entries (`SEARCHBY##<place>#<envId>#<id>`), as `<place> <id>` lines. */
const entries = async (projectId: string, envId: string) =>
  (await queryPrefix<{ SK: string; id: string }>(projectId, keys.listingPrefix('SEARCH', '')))
    .filter((e) => e.SK.split('#')[3] === envId)
    .map((e) => `${e.SK.split('#')[2]} ${e.id}`)
    .sort();

describe('the search index on every write path', () => {
  it('leaves with an archived service and floor and comes back with their restore', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const svc = await createService(api, token, projectId, envId, { name: 'archivable-svc' });
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'archivable-host' });
    expect(await ids(token, projectId, 'archivable')).toEqual([svc.id, floor.id].sort());
    const selection = { services: [svc.id], service_floors: [floor.id] };
    const archived = await api.post('/me/mark-archived', selection, { token });
    expect(archived.status, archived.text).toBe(200);
    expect(await ids(token, projectId, 'archivable')).toEqual([]);
    expect(await entries(projectId, envId)).toEqual([]);
    const restored = await api.post('/me/unarchive', selection, { token });
    expect(restored.status, restored.text).toBe(200);
    expect(await ids(token, projectId, 'archivable')).toEqual([svc.id, floor.id].sort());
  });

  it('holds what an import creates and changes', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise+');
    const kept = await createService(api, token, projectId, envId, { name: 'imported-kept' });
    const ctx = appContext();
    const document = await buildExportDocument({
      projectId,
      environmentId: envId,
      recordId: crypto.randomUUID(),
      exportedAt: new Date().toISOString(),
    });
    const ours = document.spec.services.find((s) => s.name === 'imported-kept')!;
    ours.tags = ['freshly-tagged'];
    document.spec.services.push({ ...ours, name: 'imported-new', tags: [] });
    document.spec.service_floors.push({ hostname: 'imported-host', type: 'vm', ip_address: '172.16.9.9' } as never);
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    expect((await applyImport(plan, ctx)).errors).toEqual([]);

    const found = await ids(token, projectId, 'imported');
    expect(found).toContain(kept.id);
    expect(found).toHaveLength(3); // kept, new, the floor
    expect(await ids(token, projectId, 'freshly')).toEqual([kept.id]);
    expect(await ids(token, projectId, '172.16.9.9')).toHaveLength(1);
  });

  it('agrees with the items after concurrent renames and tag changes (10 rounds)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const svc = await createService(api, token, projectId, envId, { name: 'racer-0', tags: ['t0'] });
    for (let round = 1; round <= 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          api.patch(`/services/${svc.id}`, { name: `racer-${round}-${i}`, tags: [`t${round}${i}`] }, { token }),
        ),
      );
      expect(
        answers.every((a) => [200, 409].includes(a.status)),
        answers.map((a) => a.text).join(),
      ).toBe(true);
      const now = (await api.get(`/services/${svc.id}`, { token })).body;
      expect(await ids(token, projectId, now.name)).toEqual([svc.id]);
      expect(await ids(token, projectId, now.tags[0])).toEqual([svc.id]);
      // Exactly the entries of the service as it is: none of a losing rename stayed behind, none is missing.
      expect(await entries(projectId, envId)).toEqual(
        searchEntries('service', now)
          .map((e) => `${e.place} ${svc.id}`)
          .sort(),
      );
    }
  });

  it('is rebuilt by reindex-search: missing entries written, stale ones removed', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const svc = await createService(api, token, projectId, envId, { name: 'reindexed-svc', tags: ['rebuilt'] });
    const before = await entries(projectId, envId);
    const all = await queryPrefix<{ PK: string; SK: string }>(projectId, keys.listingPrefix('SEARCH', ''));
    for (const e of all) await deleteItem({ PK: e.PK, SK: e.SK });
    const ghost = crypto.randomUUID();
    await putItem({
      ...keys.listing('SEARCH', projectId, '', envId, ghost, '=reindexed-ghost'),
      type: 'service_search_listing',
      id: ghost,
    });
    expect(await ids(token, projectId, 'reindexed')).toEqual([]);
    const done = await reindexSearch();
    expect(done.SERVICE_SEARCH.written).toBeGreaterThanOrEqual(before.length);
    expect(done.SERVICE_SEARCH.removed).toBeGreaterThanOrEqual(1);
    expect(await entries(projectId, envId)).toEqual(before);
    expect(await ids(token, projectId, 'reindexed')).toEqual([svc.id]);
    expect(await ids(token, projectId, 'rebuilt')).toEqual([svc.id]);
  });

  it('reindex-search leaves a write that races it as it wrote it: no entry of the item as the rebuild read it', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const svc = await createService(api, token, projectId, envId, { name: 'raced-before', tags: ['raced'] });
    for (const e of await queryPrefix<{ PK: string; SK: string; id: string }>(
      projectId,
      keys.listingPrefix('SEARCH', ''),
    ))
      if (e.id === svc.id) await deleteItem({ PK: e.PK, SK: e.SK });
    // The rebuild read the service as 'raced-before'; before its first write for it, the service is renamed.
    let renamed = false;
    const hook = ddb().middlewareStack;
    hook.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems;
        if (!renamed && items?.some((t) => t.Put?.Item?.id === svc.id)) {
          renamed = true;
          const res = await api.patch(`/services/${svc.id}`, { name: 'raced-after' }, { token });
          expect(res.status, res.text).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'renameBeforeReindexWrites' },
    );
    try {
      await reindexSearch();
    } finally {
      hook.remove('renameBeforeReindexWrites');
    }
    expect(renamed).toBe(true);
    const now = (await api.get(`/services/${svc.id}`, { token })).body;
    expect(now.name).toBe('raced-after');
    expect(await entries(projectId, envId)).toEqual(
      searchEntries('service', now)
        .map((e) => `${e.place} ${svc.id}`)
        .sort(),
    );
    expect(await ids(token, projectId, 'raced-before')).toEqual([]);
    expect(await ids(token, projectId, 'raced-after')).toEqual([svc.id]);
  });
});
