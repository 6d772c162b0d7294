import { setFieldsStep } from '#db/live';
import { IF_ABSENT } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { changeAudit, creationAudit, type AuditActor } from '#shared/audit';
import { conflict } from '#shared/errors';
import type { AppContext } from '#shared/context';
import {
  auditedConnection,
  chainEntity,
  chainShown,
  connectionEntity,
  floorEntity,
  linkEntity,
  networkEntity,
  newFloorSteps,
  newLinkSteps,
  newNetworkSteps,
  newServiceSteps,
  putChainSteps,
  putConnectionSteps,
  serviceEntity,
  serviceHintsStep,
  type Service,
} from '#domain/catalog';
import { newGroupSteps, newSubgroupSteps, type Group, type Subgroup } from '#domain/tenancy';
import type { ImportPlan } from './plan.ts';
import type { CreateKind, Unit } from './units.ts';

/**
 * Who an import's entries name and how long its update entries are kept: the account that
 * started the import, the import's id on every entry it writes, the owner's plan's retention.
 */
export interface ImportAudit {
  importId: string;
  actor: AuditActor;
  days: number | null;
}
/** The audit log's name of each kind an import writes. */
const AUDITED_AS: Record<CreateKind, string> = {
  group: 'group',
  subgroup: 'subgroup',
  network: 'network',
  floor: 'floor',
  service: 'service',
  link: 'link',
  connection: 'connection',
  chain: 'chain',
};
const KIND_OF_REPORT: Record<string, string> = {
  group: 'group',
  subgroup: 'subgroup',
  service_floor: 'floor',
  network: 'network',
  service: 'service',
  service_link: 'link',
  service_connection: 'connection',
};
/** What an entry shows of an imported entity: its fields as its readers see them (no internal ones). */
const shownOf = ({
  network_ids: _n,
  subgroup_count: _s,
  created_at: _c,
  updated_at: _u,
  deleted_at: _d,
  audit_head: _h,
  ...rest
}: Record<string, unknown>) => rest;

/** The writes of a unit's own items (nothing another unit of its phase touches), with the unit's audit entry. */
export function unitWrites(
  u: Unit,
  now: string,
  ctx: AppContext,
  plan: Pick<ImportPlan, 'projectId' | 'environmentId' | 'report'>,
  audit?: ImportAudit,
): TransactStep[] {
  const where = { project_id: plan.projectId, environment_id: plan.environmentId };
  if (u.update) {
    const type = KIND_OF_REPORT[plan.report.items[u.item]?.kind ?? ''] ?? 'service';
    const entry =
      audit && u.update.audit
        ? changeAudit(
            ctx,
            type,
            'update',
            { id: u.update.audit.id, ...where, audit_head: u.update.audit.head },
            { before: shownOf(u.update.audit.before), after: shownOf(u.update.changes) },
            audit.days,
            {
              actor: audit.actor,
              importId: audit.importId,
            },
          )
        : undefined;
    const steps = [
      setFieldsStep(
        u.update.key,
        { ...u.update.changes, updated_at: now, audit_head: entry?.head },
        conflict(u.update.gone),
        u.update.listing?.asRead,
      ),
      ...(u.update.listing?.steps ?? []),
      ...(entry?.steps ?? []),
    ];
    if (u.update.hints) steps.push(serviceHintsStep(u.update.hints.id, u.update.hints as unknown as Service));
    return steps;
  }
  const stamp = (fields: Record<string, unknown>): Record<string, unknown> => ({
    ...fields,
    created_at: now,
    updated_at: now,
  });
  const stamped = stamp(u.create!.fields);
  const entry = (shown: Record<string, unknown>) =>
    audit
      ? creationAudit(ctx, AUDITED_AS[u.create!.kind], { id: String(stamped.id), ...where }, shown, {
          actor: audit.actor,
          importId: audit.importId,
        })
      : [];
  const created = u.create!.kind === 'connection' || u.create!.kind === 'chain' ? [] : entry(shownOf(stamped));
  switch (u.create!.kind) {
    case 'group':
      return [...newGroupSteps(stamped as unknown as Group), ...created];
    case 'subgroup':
      return [...newSubgroupSteps(stamped as unknown as Subgroup), ...created];
    case 'network':
      return [...newNetworkSteps(networkEntity.create(stamped as never)), ...created];
    case 'floor':
      return [...newFloorSteps(floorEntity.create(stamped as never)), ...created];
    case 'service':
      return [...newServiceSteps(serviceEntity.create(stamped as never)), ...created];
    case 'link':
      return [...newLinkSteps(linkEntity.create(stamped as never)), ...created];
    case 'connection': {
      const connection = connectionEntity.create(stamped as never);
      return [...putConnectionSteps(connection), ...entry(auditedConnection(connection))];
    }
    case 'chain': {
      const chain = chainEntity.create(stamped as never);
      const members = (u.create!.members ?? []).map((m) => connectionEntity.create(stamp(m) as never));
      // One entry for the chain and its first members, as a batch writes.
      return [...putChainSteps(chain), ...members.flatMap(putConnectionSteps), ...entry(chainShown(chain, members))];
    }
  }
}

/**
 * A create's write of a new key with no refusal of its own (the entity, its lookup and listings,
 * its audit entry: keys made from new ids): a staged chunk writes these by BatchWriteItem. Puts
 * with a refusal (name claims) and every other step stay in its transactions.
 */
export const freshPut = (s: TransactStep) =>
  Boolean(s.Put) &&
  !s.failWith &&
  (!s.Put!.ConditionExpression || s.Put!.ConditionExpression === IF_ABSENT.ConditionExpression);
