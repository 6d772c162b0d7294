import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { changeAudit } from '#shared/audit';
import { softDeleteStep, setFieldsStep } from '#db/live';
import { counterStep } from '#db/steps';
import { connectionListing } from '../listings.ts';
import { CONNECTION_NOT_FOUND } from './limits-and-refusals.ts';
import { auditedConnection, chainShown, chainWriteStep, connectionKey, retention } from './items.ts';
import { manageChain, manageConnection } from './access.ts';

/** Soft delete; a chain member also leaves its chain's count. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteConnection = (...args: Parameters<typeof deleteConnectionOnce>) =>
  retryWhenStale(() => deleteConnectionOnce(...args));

async function deleteConnectionOnce(ctx: AppContext, input: { connection_id: string }): Promise<void> {
  const { connection, access } = await manageConnection(ctx, input.connection_id);
  const now = ctx.clock.now().toISOString();
  const leaveChain: TransactStep[] = connection.chain_id
    ? [
        counterStep(keys.connectionChain(connection.project_id, connection.environment_id, connection.chain_id), {
          connection_count: -1,
        }),
      ]
    : [];
  const audit = changeAudit(
    ctx,
    'connection',
    'delete',
    connection,
    { before: auditedConnection(connection), after: null },
    await retention(access),
  );
  await transact([
    // The soft delete (the live rule's condition), with the connection's latest audit entry.
    setFieldsStep(
      connectionKey(connection),
      { deleted_at: now, updated_at: now, audit_head: audit.head },
      notFound(CONNECTION_NOT_FOUND),
    ),
    ...connectionListing.steps(connection, null),
    ...leaveChain,
    ...audit.steps,
  ]);
}

/** Soft-deletes a chain or hub and all its members, in one transaction. */
export const deleteChain = (ctx: AppContext, input: { chain_id: string }): Promise<void> =>
  retryWhenStale(() => deleteChainOnce(ctx, input));

async function deleteChainOnce(ctx: AppContext, input: { chain_id: string }): Promise<void> {
  const { chain, members, days } = await manageChain(ctx, input.chain_id);
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(ctx, 'chain', 'delete', chain, { before: chainShown(chain, members), after: null }, days);
  await transact([
    chainWriteStep(chain, { deleted_at: now, updated_at: now, connection_count: 0, audit_head: audit.head }),
    ...members.flatMap((c) => [
      softDeleteStep(connectionKey(c), now, CASCADE_STALE),
      ...connectionListing.steps(c, null),
    ]),
    ...audit.steps,
  ]);
}
