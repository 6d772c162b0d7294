import { DomainError, isRefusal } from '#shared/errors';
import type { Account, Actor } from '#shared/actor';
import type { AppContext } from '#shared/context';
import { deleteConnection, deleteFloor, deleteLink, deleteNetwork, deleteService } from '#domain/catalog';
import { deleteGroup, deleteSubgroup } from '#domain/tenancy';
import type { ImportError } from '../parse.ts';
import { KIND, type Extra, type ImportReport } from './report.ts';

const DELETE: Record<Extra['kind'], ((ctx: AppContext, id: string) => Promise<void>) | undefined> = {
  [KIND.connection]: (ctx, id) => deleteConnection(ctx, { connection_id: id }),
  [KIND.link]: (ctx, id) => deleteLink(ctx, { link_id: id }),
  [KIND.service]: (ctx, id) => deleteService(ctx, { service_id: id }),
  [KIND.floor]: (ctx, id) => deleteFloor(ctx, { floor_id: id }),
  [KIND.network]: (ctx, id) => deleteNetwork(ctx, { network_id: id }),
  [KIND.subgroup]: (ctx, id) => deleteSubgroup(ctx, { id }),
  [KIND.group]: (ctx, id) => deleteGroup(ctx, { id }),
  [KIND.chain]: undefined,
};

/**
 * The import job acting for the account that started it: the ordinary delete rules (its permission
 * checks, cascades, counters, audit entries and events) run as that account. The job has no sign-in
 * of its own (no session, no key); nothing on a delete's path reads one.
 */
const starterActor = (account: Account): Actor => ({ account, session: null, key: null });

/**
 * Deletes an import's extras (in extras.ts's order) with the ordinary delete of each kind, as the
 * starter (`ctx.actor`). One already gone (404) is skipped; any other refusal (a permission the
 * starter lacks) stops the pruning with that refusal as the import's error. `halt()` stops it between two deletions (a cancel).
 */
async function deleteExtras(
  ctx: AppContext,
  extras: Extra[],
  halt?: () => boolean,
): Promise<{ deleted: Extra[]; error?: ImportError }> {
  const deleted: Extra[] = [];
  for (const extra of extras) {
    if (halt?.()) break;
    try {
      await DELETE[extra.kind]?.(ctx, extra.id);
      deleted.push(extra);
    } catch (err) {
      if (isRefusal(err, 'not_found')) continue;
      if (!(err instanceof DomainError)) throw err;
      return {
        deleted,
        error: { path: '', line: null, message: `Not deleted: ${extra.kind} '${extra.name}': ${String(err.detail)}` },
      };
    }
  }
  return { deleted };
}

/**
 * An import's prune, once the document's writes are done (under the same lock): the extras deleted
 * as the account that started it, their audit entries linked to the import (`importId`: its record's id, as its other entries); what it deleted, and a refusal that stopped it, go to `report`.
 */
export async function pruneInto(
  report: ImportReport,
  run: { ctx: AppContext; importId: string; starter: Account | undefined; extras: Extra[]; halt: () => boolean },
) {
  if (!run.starter) {
    report.errors.push({
      path: '',
      line: null,
      message: 'Nothing was pruned: the account that started the import is gone',
    });
  } else {
    const actor = starterActor(run.starter);
    // Its deletions' audit entries name the import, as the entries of its other writes do.
    const pruned = await deleteExtras({ ...run.ctx, actor, importId: run.importId }, run.extras, run.halt);
    report.deleted = pruned.deleted;
    if (pruned.error) report.errors.push(pruned.error);
  }
  report.summary = { ...report.summary, error: report.errors.length };
}
