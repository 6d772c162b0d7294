import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { ddb } from '#shared/clients';
import { appContext } from '#shared/context';
import { queryPrefix } from '#db/query';
import { counterStep, putStep } from '#db/steps';
import { stillLiveStep } from '#db/live';
import { conflict, DomainError, invalid } from '#shared/errors';
import { stagedWrite, undoStagedWrites, STAGED_STALE_MS, type StagedWrite } from '#db/staged-write';
import { SERVICE_ACTOR } from '#shared/audit';
import { applyImport, environmentDocument, IMPEX_API_VERSION, planImport, undoInterruptedImport } from '#domain/impex';

/**
 * Imports write their new items by BatchWriteItem in staged chunks: a chunk's counters
 * and claims open it with a journal, its items follow, its guards close it. Whatever stops a chunk
 * in between (a refusal, a failure, a process that dies) never leaves it half written.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);

/** A partition of its own: a counter item, a guard item, and the keys of a staged write's items. */
async function scene(items = 60) {
  const projectId = `staged-${randomUUID()}`;
  const counter = { PK: `PROJECT#${projectId}`, SK: 'COUNTER' };
  const guard = { PK: `PROJECT#${projectId}`, SK: 'GUARD' };
  await ddb().send(
    new (await import('@aws-sdk/lib-dynamodb')).TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: ref.stack.config.TABLE_NAME, Item: { ...counter, n: 5 } } },
        { Put: { TableName: ref.stack.config.TABLE_NAME, Item: { ...guard, deleted_at: null } } },
      ],
    }),
  );
  const owner = `import-${randomUUID()}`;
  const write = (n = 0, extra: Partial<StagedWrite> = {}): StagedWrite => ({
    journal: keys.stagedWrite(projectId, 'env', owner, n),
    owner,
    open: [
      counterStep(counter, { n: items }, { max: { n: 1000 }, failWith: invalid('limit') }),
      putStep({ PK: `PROJECT#${projectId}`, SK: `CLAIM#${n}` }),
    ],
    items: Array.from({ length: items }, (_, i) => ({
      PK: `PROJECT#${projectId}`,
      SK: `ITEM#${n}#${String(i).padStart(4, '0')}`,
      i,
    })),
    close: [stillLiveStep(guard, conflict('guard gone'))],
    undo: [counterStep(counter, { n: -items })],
    ...extra,
  });
  const state = async () => ({
    count: Number((await readItem(counter))!.n),
    items: (await queryPrefix(projectId, 'ITEM#')).length,
    claims: (await queryPrefix(projectId, 'CLAIM#')).length,
    journals: (await queryPrefix(projectId, 'STAGED#')).length,
  });
  return { projectId, counter, guard, owner, write, state };
}

describe('a staged write', () => {
  it('commits its counters, claims and items whole, and leaves no journal', async () => {
    const s = await scene(60);
    await stagedWrite(s.write(), new Date().toISOString());
    expect(await s.state()).toEqual({ count: 65, items: 60, claims: 1, journals: 0 });
  });

  it('refused when it opens (a limit): nothing is written', async () => {
    const s = await scene(2000);
    await expect(stagedWrite(s.write(), new Date().toISOString())).rejects.toMatchObject({ detail: 'limit' });
    expect(await s.state()).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
  });

  it('refused when it closes (what it refers to went while its items were written): everything is taken back', async () => {
    const s = await scene(60);
    const removeGuard = async () =>
      void (await ddb().send(
        new (
          await import('@aws-sdk/lib-dynamodb')
        ).DeleteCommand({ TableName: ref.stack.config.TABLE_NAME, Key: s.guard }),
      ));
    await expect(stagedWrite(s.write(0, { beforeClose: removeGuard }), new Date().toISOString())).rejects.toMatchObject(
      { detail: 'guard gone' },
    );
    expect(await s.state()).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
  });

  it("left by a process that stopped between its items and its close: its owner's retry undoes it, and the stopped writer can no longer close", async () => {
    const s = await scene(60);
    let resume!: () => void;
    const hung = new Promise<void>((r) => (resume = r));
    let reached!: () => void;
    const atClose = new Promise<void>((r) => (reached = r));
    const stopped = stagedWrite(s.write(0, { beforeClose: () => (reached(), hung) }), new Date().toISOString());
    await atClose;
    expect(await s.state()).toEqual({ count: 65, items: 60, claims: 1, journals: 1 });
    // Someone else's recovery leaves a fresh journal alone; its owner's retry undoes it.
    expect(await undoStagedWrites(s.projectId, keys.stagedWritePrefix('env'), 'another-import', new Date())).toBe(0);
    expect(await undoStagedWrites(s.projectId, keys.stagedWritePrefix('env'), s.owner, new Date())).toBe(1);
    expect(await s.state()).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
    resume();
    await expect(stopped).rejects.toBeInstanceOf(DomainError);
    expect(await s.state()).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
  });

  it('left stale by an owner that never came back: anyone undoes it after 15 minutes', async () => {
    const s = await scene(30);
    let reached!: () => void;
    const atClose = new Promise<void>((r) => (reached = r));
    void stagedWrite(
      s.write(0, { beforeClose: () => (reached(), new Promise<void>(() => {})) }),
      new Date().toISOString(),
    ).catch(() => {});
    await atClose;
    const later = (ms: number) => new Date(Date.now() + ms);
    expect(
      await undoStagedWrites(
        s.projectId,
        keys.stagedWritePrefix('env'),
        'another-import',
        later(STAGED_STALE_MS - 60_000),
      ),
    ).toBe(0);
    expect(
      await undoStagedWrites(
        s.projectId,
        keys.stagedWritePrefix('env'),
        'another-import',
        later(STAGED_STALE_MS + 60_000),
      ),
    ).toBe(1);
    expect(await s.state()).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
  });

  it('racing its own undo: either committed whole or undone whole, never between (20 races)', async () => {
    const outcomes = new Set<string>();
    for (let run = 0; run < 20; run++) {
      const s = await scene(30);
      let reached!: () => void;
      const atClose = new Promise<void>((r) => (reached = r));
      const write = stagedWrite(
        s.write(0, {
          beforeClose: async () => {
            reached();
            await new Promise((r) => setTimeout(r, run % 4));
          },
        }),
        new Date().toISOString(),
      );
      await atClose;
      const [written, undone] = await Promise.allSettled([
        write,
        undoStagedWrites(s.projectId, keys.stagedWritePrefix('env'), s.owner, new Date()),
      ]);
      const state = await s.state();
      if (written.status === 'fulfilled') {
        expect(state).toEqual({ count: 35, items: 30, claims: 1, journals: 0 });
        outcomes.add('committed');
      } else {
        expect(state).toEqual({ count: 5, items: 0, claims: 0, journals: 0 });
        outcomes.add('undone');
      }
      expect(undone.status).toBe('fulfilled');
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

/** A DynamoDB client middleware for the BatchWriteItem requests that put an item named `name` (the chunk holding that service). */
const putsNamed = (args: { input: unknown }, name: string) =>
  Object.values(
    (args.input as { RequestItems?: Record<string, { PutRequest?: { Item?: { name?: string } } }[]> }).RequestItems ??
      {},
  ).some((rs) => Array.isArray(rs) && rs.some((r) => r.PutRequest?.Item?.name === name));

describe('an import in staged chunks', () => {
  it('a server removed while a chunk of its services is written: that chunk is taken back, the import stops, what committed is whole and counted', async () => {
    // Chunks of 20 services; the server goes while the chunk holding the named service is written (two chunks are in flight at once).
    for (const during of ['s-0', 's-25', 's-39']) {
      const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
      const floor = await createFloor(api, token, projectId, envId, { hostname: 'h' });
      const document = environmentDocument.parse({
        apiVersion: IMPEX_API_VERSION,
        kind: 'Environment',
        spec: {
          services: Array.from({ length: 40 }, (_, i) => ({ name: `s-${i}`, floor: 'h' })),
          service_floors: [{ hostname: 'h', type: 'vm' }],
        },
      });
      const ctx = appContext();
      const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
      expect(plan.report.summary).toMatchObject({ create: 40, error: 0 });
      let removed = false;
      const hook = ddb().middlewareStack;
      hook.add(
        (next) => async (args) => {
          const out = await next(args);
          if (!removed && putsNamed(args, during)) {
            removed = true;
            expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token })).status).toBe(204);
          }
          return out;
        },
        { step: 'initialize', name: 'removeFloorDuringImport' },
      );
      let report: Awaited<ReturnType<typeof applyImport>>;
      try {
        // 20 services a chunk: 7 new items each (service, id lookup, name listing, listing by its server, and
        // three search entries of a name `s-<n>`: the name and its two tokens).
        report = await applyImport(plan, ctx, undefined, undefined, 140);
      } finally {
        hook.remove('removeFloorDuringImport');
      }
      expect(report.errors).toEqual([
        { path: '', line: null, message: "Service floor 'h' was removed during the import" },
      ]);
      const applied = report.items.filter((i) => i.kind === 'service' && i.action === 'create').map((i) => i.name);
      expect(applied.length % 20).toBe(0);
      expect(applied).not.toContain(during);
      const listed = (await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body as {
        name: string;
      }[];
      expect(listed.map((x) => x.name).sort()).toEqual([...applied].sort());
      expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(applied.length);
      expect((await readItem(keys.project(projectId)))!.service_count).toBe(applied.length);
      expect(await queryPrefix(projectId, keys.stagedWritePrefix(envId))).toEqual([]);
    }
  });

  it('interrupted while a chunk is written: its retry takes the chunk back, then planning again and applying finishes with exact counts', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: { services: Array.from({ length: 50 }, (_, i) => ({ name: `s-${i}` })) },
    });
    const ctx = appContext();
    const importId = `import-${randomUUID()}`;
    const audit = { importId, actor: SERVICE_ACTOR, days: null };
    // Chunks of 25 services (7 new items each: 4, the audit entry among them, and 3 search entries). The process "dies" writing
    // the second chunk: the request holding s-30 never comes back.
    let release!: (err: Error) => void;
    const never = new Promise<never>((_, reject) => (release = reject));
    let reached!: () => void;
    const hungAt = new Promise<void>((r) => (reached = r));
    const hook = ddb().middlewareStack;
    hook.add(
      (next) => async (args) => {
        if (!putsNamed(args, 's-30')) return next(args);
        reached();
        return never;
      },
      { step: 'initialize', name: 'dieInBatch' },
    );
    let closed!: () => void;
    const firstClosed = new Promise<void>((r) => (closed = r));
    const dead = applyImport(
      await planImport({ projectId, environmentId: envId, document }, ctx),
      ctx,
      (done) => void (done === 25 && closed()),
      audit,
      175,
    ).catch((e: unknown) => e);
    await Promise.all([hungAt, firstClosed]);
    hook.remove('dieInBatch');
    const env = keys.environment(projectId, envId);
    // The first chunk committed; the second opened (its counters moved) and is half written.
    expect((await readItem(env))!.service_count).toBe(50);
    expect(await queryPrefix(projectId, keys.stagedWritePrefix(envId))).toHaveLength(1);
    // The retry: undo, plan again, apply.
    expect(await undoInterruptedImport(projectId, envId, importId, new Date())).toBe(1);
    expect((await readItem(env))!.service_count).toBe(25);
    const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token });
    expect(listed.body).toHaveLength(25);
    const replan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(replan.report.summary).toEqual({ create: 25, update: 0, unchanged: 25, error: 0 });
    expect((await applyImport(replan, ctx)).errors).toEqual([]);
    expect((await readItem(env))!.service_count).toBe(50);
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(50);
    expect((await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body).toHaveLength(
      50,
    );
    // The dead run, woken, cannot close what was taken back.
    release(new Error('connection reset'));
    expect(await dead).toBeInstanceOf(Error);
    expect((await readItem(env))!.service_count).toBe(50);
    expect(await queryPrefix(projectId, keys.stagedWritePrefix(envId))).toEqual([]);
  });
});
