import { transact, type TransactStep, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { changeAudit } from '#shared/audit';
import type { Connection, Direction } from '../connection-entity.ts';
import { setFieldsStep } from '#db/live';
import { CONNECTION_NOT_FOUND } from './limits-and-refusals.ts';
import { auditedConnection, chainShown, chainWriteStep, connectionKey, retention } from './items.ts';
import { withoutDuplicates } from './duplicates.ts';
import { manageChain, manageConnection } from './access.ts';

export interface ConnectionChanges {
  direction?: Direction;
  name?: string | null;
}

/** Sets the given fields (undefined = unchanged) on a live connection. */
function updateConnectionStep(
  c: Connection,
  changes: ConnectionChanges,
  now: string,
  failWith = notFound(CONNECTION_NOT_FOUND),
  auditHead?: string,
): TransactStep {
  return setFieldsStep(
    connectionKey(c),
    { direction: changes.direction, name: changes.name, updated_at: now, audit_head: auditHead },
    failWith,
  );
}

const applyChanges = (c: Connection, changes: ConnectionChanges, now: string): Connection => ({
  ...c,
  ...(changes.direction !== undefined ? { direction: changes.direction } : {}),
  ...(changes.name !== undefined ? { name: changes.name } : {}),
  updated_at: now,
});

// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const updateConnection = (...args: Parameters<typeof updateConnectionOnce>) =>
  retryWhenStale(() => updateConnectionOnce(...args));

async function updateConnectionOnce(
  ctx: AppContext,
  input: { connection_id: string } & ConnectionChanges,
): Promise<Connection> {
  const { connection_id: id, ...changes } = input;
  const { connection, env, access } = await manageConnection(ctx, id);
  // Unchanged values are no write and no entry, as for every other update.
  const same =
    (changes.direction ?? connection.direction) === connection.direction &&
    (changes.name === undefined || changes.name === connection.name);
  if (same) return connection;
  const now = ctx.clock.now().toISOString();
  const after = applyChanges(connection, changes, now);
  const audit = changeAudit(
    ctx,
    'connection',
    'update',
    connection,
    { before: auditedConnection(connection), after: auditedConnection(after) },
    await retention(access),
  );
  const steps = [updateConnectionStep(connection, changes, now, undefined, audit.head), ...audit.steps];
  if (changes.direction === undefined || changes.direction === connection.direction) await transact(steps);
  else
    await withoutDuplicates(
      connection.project_id,
      env,
      { specs: [after], replacing: new Set([connection.id]) },
      (v) => [v, ...steps],
    );
  return after;
}

/** Sets direction and/or name on every member of a chain or hub, in one transaction. */
export const updateChain = (ctx: AppContext, input: { chain_id: string } & ConnectionChanges): Promise<Connection[]> =>
  retryWhenStale(() => updateChainOnce(ctx, input));

async function updateChainOnce(
  ctx: AppContext,
  input: { chain_id: string } & ConnectionChanges,
): Promise<Connection[]> {
  const { chain_id: chainId, ...changes } = input;
  const { chain, env, members, days } = await manageChain(ctx, chainId);
  const now = ctx.clock.now().toISOString();
  const updated = members.map((c) => applyChanges(c, changes, now));
  // One entry for the chain-wide change (its members' before and after): the members share the transaction's 100 items.
  const audit = changeAudit(
    ctx,
    'chain',
    'update',
    chain,
    { before: chainShown(chain, members), after: chainShown(chain, updated) },
    days,
  );
  const steps = [
    chainWriteStep(chain, { updated_at: now, audit_head: audit.head }),
    ...members.map((c) => updateConnectionStep(c, changes, now, CASCADE_STALE)),
    ...audit.steps,
  ];
  if (changes.direction === undefined) await transact(steps);
  else
    await withoutDuplicates(
      chain.project_id,
      env,
      { specs: updated, replacing: new Set(members.map((c) => c.id)) },
      (v) => [v, ...steps],
    );
  return updated;
}
