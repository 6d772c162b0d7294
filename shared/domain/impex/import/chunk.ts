import { keys } from '#db/keys';
import { keyId } from '#db/batch-get';
import { getItem } from '#db/items';
import { isLive, stillLiveStep } from '#db/live';
import { referenceStep } from '#db/refs';
import { mergeMoves, moveStep, undoMoveStep, whyRefused } from '#db/counter-moves';
import type { StagedWrite } from '#db/staged-write';
import { concurrentChange, type TransactStep } from '#db/transact';
import { conflict, invalid, type DomainError } from '#shared/errors';
import { catalogueUnchangedStep, connectionsVersionStep } from '#domain/catalog';
import { ENV_NOT_IN_PROJECT, envLiveCheck } from '#domain/tenancy';
import type { ImportPlan } from './plan.ts';
import type { Unit } from './units.ts';
import { freshPut } from './unit-writes.ts';

/** Refusal of a connection write whose environment's connections changed since the plan read them. */
const CONNECTIONS_CHANGED = 'The connections of the environment changed during the import: import again to finish';

export interface Built {
  /** A chunk of updates: one transaction. */
  steps?: TransactStep[];
  /** A chunk of creates: a staged write (db/staged-write.ts): its conditions in transactions around a BatchWriteItem of its new items. */
  staged?: Pick<StagedWrite, 'open' | 'items' | 'close' | 'undo'>;
  now: string;
  /** It writes connections, so it moves the environment's connections_version on. */
  movesConnections: boolean;
  /** Refusals of the counter steps that need a read to be explained (the environment gone, or its limit). */
  diagnose: Map<DomainError, () => Promise<DomainError>>;
  /** The refusal of its hold on the custom field definitions the plan checked its values with (they changed meanwhile). */
  definitionsChanged?: DomainError;
}

/** Whether a unit writes custom values (a new service, floor or network has them, its defaults at least). */
const writesValues = (u: Unit) =>
  u.create?.fields.custom_fields !== undefined || u.update?.changes.custom_fields !== undefined;

/**
 * One chunk's writes: the units' own writes, each shared item once (counters summed, with their
 * limit; else a liveness guard). A chunk of creates is staged: its counters and claims open it, its
 * new items follow by BatchWriteItem, and its guards (what the items refer to, the counters' items
 * among them) close it once the items are there, so a removal racing the items is still refused.
 */
export function build(
  chunk: Unit[],
  own: TransactStep[],
  plan: ImportPlan,
  now: string,
  connectionsVersion: number,
): Built {
  const { projectId, environmentId: envId } = plan;
  const staged = chunk.every((u) => u.create);
  const diagnose: Built['diagnose'] = new Map();
  const moves = mergeMoves(chunk.flatMap((u) => u.counters));
  const moved = new Set(moves.map((m) => keyId(m.key)));
  const counterSteps = moves
    .map((m) => {
      const limit = Object.values(m.limits ?? {})[0]?.refusal;
      // Only the project's service counter moves unguarded, always with its limit: refused, it is that limit.
      if (m.whileLive === undefined) return moveStep(m, limit!);
      // Refused because the item is gone or a limit is reached: a read tells which.
      const failed = concurrentChange();
      diagnose.set(failed, async () => {
        const why = whyRefused(m, await getItem(m.key));
        return why === 'gone' ? invalid(m.whileLive!) : (why ?? limit ?? invalid(m.whileLive!));
      });
      return moveStep(m, failed);
    })
    .filter((s): s is TransactStep => s !== undefined);
  const envKey = keys.environment(projectId, envId);
  // Connections are created (or turned round) against the list the plan read: the version it read must
  // still be the environment's (another write could have made one of them a duplicate), then it moves on.
  const movesConnections = chunk.some(
    (u) => u.create?.kind === 'connection' || u.create?.kind === 'chain' || u.update?.changes.direction !== undefined,
  );
  const checks: TransactStep[] = [];
  if (movesConnections) {
    const failed = concurrentChange();
    checks.push(connectionsVersionStep(projectId, envId, connectionsVersion, failed));
    diagnose.set(failed, async () =>
      isLive(await getItem(envKey)) ? conflict(CONNECTIONS_CHANGED) : invalid(ENV_NOT_IN_PROJECT),
    );
  } else if (staged || !moved.has(keyId(envKey))) checks.push(envLiveCheck(projectId, envId));
  // Values are written only under the definitions the plan checked them against, as every write of values is.
  const catalogue = plan.source?.env.valueRules.catalogue;
  const definitionsChanged = catalogue && chunk.some(writesValues) ? concurrentChange() : undefined;
  if (definitionsChanged) checks.push(catalogueUnchangedStep(catalogue!, definitionsChanged));
  // Guards: in a transaction, a counter's own condition keeps its item live; a staged chunk checks them again when it closes.
  const guarded = new Set([keyId(envKey), ...(staged ? [] : moved)]);
  const guards = [
    ...chunk.flatMap((u) => u.guards.map((g) => ({ key: g.key, refusal: () => conflict(g.gone) }))),
    ...(staged
      ? moves.flatMap((m) => (m.whileLive ? [{ key: m.key, refusal: () => invalid(m.whileLive!) }] : []))
      : []),
  ];
  const edgeEnds = new Set(chunk.flatMap((u) => u.guards.filter((g) => g.edge).map((g) => keyId(g.key))));
  for (const g of guards) {
    if (guarded.has(keyId(g.key))) continue;
    guarded.add(keyId(g.key));
    checks.push(edgeEnds.has(keyId(g.key)) ? referenceStep(g.key, g.refusal()) : stillLiveStep(g.key, g.refusal()));
  }
  if (!staged)
    return { steps: [...own, ...counterSteps, ...checks], now, diagnose, movesConnections, definitionsChanged };
  return {
    staged: {
      open: [...own.filter((s) => !freshPut(s)), ...counterSteps],
      items: own.filter(freshPut).map((s) => s.Put!.Item!),
      close: checks,
      undo: moves.map(undoMoveStep),
    },
    now,
    diagnose,
    movesConnections,
    definitionsChanged,
  };
}
