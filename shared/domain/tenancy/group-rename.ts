/** The PATCH of a group or subgroup: a new name moves its name claim, the description is set as given, audited when either changed. */
import { transact } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import type { ProjectAccess } from './access.ts';
import { retentionOfProject } from './projects.ts';
import { changeAudit } from '#shared/audit';
import { namedWriteSteps, type NameScope } from '#db/unique-names';
import type { Key } from '#db/batch-get';
import type { Group, Subgroup } from './group-entity.ts';
import { auditedGroup, kindOf } from './group-rules.ts';

/** PATCH of a group or subgroup (groups.manage in its environment, checked on access): a new name moves its name claim; the description is set as given. */
export async function renameOrDescribe<T extends Group | Subgroup>(
  ctx: AppContext,
  access: ProjectAccess,
  item: T,
  where: { key: Key; names: NameScope; gone: string },
  patch: { name?: string; description?: string | null },
): Promise<T> {
  const updated: T = { ...item, ...definedOnly(patch), updated_at: ctx.clock.now().toISOString() };
  const changed = updated.name !== item.name || (updated.description ?? null) !== (item.description ?? null);
  const audit = changed
    ? changeAudit(
        ctx,
        kindOf(item),
        'update',
        item,
        { before: auditedGroup(item), after: auditedGroup(updated) },
        await retentionOfProject(access.project),
      )
    : undefined;
  await transact([
    ...namedWriteSteps(
      where.names,
      { ...item, key: where.key },
      { name: patch.name, description: patch.description, updated_at: updated.updated_at, audit_head: audit?.head },
      notFound(where.gone),
    ),
    ...(audit?.steps ?? []),
  ]);
  return updated;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
