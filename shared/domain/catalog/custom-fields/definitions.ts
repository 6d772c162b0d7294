import { keys } from '#db/keys';
import { putNewStep, putWhenStep } from '#db/steps';
import { transact, retryWhenStale, CASCADE_STALE } from '#db/transact';
import { conflict, notFound, unprocessable } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject, retentionOfProject } from '#domain/tenancy';
import { customFieldEntity, type CustomFieldDefinition } from './definition-entity.ts';
import { catalogueMoveStep, readCatalogue } from './catalogue.ts';
import { definitionIssues, type CreateCustomFieldInput, type UpdateCustomFieldInput } from './definition-rules.ts';
import { MAX_CUSTOM_FIELDS } from './limits.ts';
import { breakingCount, projectItemValues, wouldBreak } from './breakage.ts';
import { definitionChangeAudit, definitionChanged, definitionCreatedAudit } from './definition-audit.ts';

/**
 * A project's custom field definitions: any member reads them; the owner, or a member whose custom
 * role grants `project.manage`, defines them. At most 50 per project and one per key, held under
 * concurrent requests by the catalogue's versioned state (catalogue.ts) and the definition's own
 * put-if-absent, in one transaction.
 */

export const CUSTOM_FIELD_NOT_FOUND = 'Custom field not found';
export const CUSTOM_FIELD_EXISTS = 'A custom field with this key already exists in this project';
export const CUSTOM_FIELD_BEING_DELETED = 'This custom field is being deleted';

export async function listCustomFields(
  ctx: AppContext,
  input: { project_id: string },
): Promise<CustomFieldDefinition[]> {
  const [, catalogue] = await Promise.all([
    accessToProject(input.project_id, actorAccount(ctx).id),
    readCatalogue(input.project_id),
  ]);
  return catalogue.definitions.sort((a, b) => (a.key < b.key ? -1 : 1));
}

async function manage(ctx: AppContext, projectId: string) {
  const [access, catalogue] = await Promise.all([
    accessToProject(projectId, actorAccount(ctx).id),
    readCatalogue(projectId),
  ]);
  access.requireOwnerRight('project.manage');
  return { access, catalogue };
}

async function refuseIssues(d: Parameters<typeof definitionIssues>[0]) {
  const issues = await definitionIssues(d);
  if (issues.length) throw unprocessable(issues);
}

export const createCustomField = (
  ctx: AppContext,
  input: CreateCustomFieldInput & { project_id: string },
): Promise<CustomFieldDefinition> => retryWhenStale(() => createOnce(ctx, input));

async function createOnce(ctx: AppContext, input: CreateCustomFieldInput & { project_id: string }) {
  const { catalogue } = await manage(ctx, input.project_id);
  const now = ctx.clock.now().toISOString();
  const def = customFieldEntity.create({
    key: input.key,
    project_id: input.project_id,
    label: input.label,
    type: input.type,
    applies_to: input.applies_to,
    required: input.required,
    default: input.default ?? null,
    choices: input.choices ?? null,
    pattern: input.pattern ?? null,
    min: input.min ?? null,
    max: input.max ?? null,
    created_at: now,
    updated_at: now,
  });
  await refuseIssues(def);
  if (catalogue.definitions.some((d) => d.key === def.key)) throw conflict(CUSTOM_FIELD_EXISTS);
  if (catalogue.definitions.length >= MAX_CUSTOM_FIELDS)
    throw unprocessable([
      { loc: ['body', 'key'], msg: `A project has at most ${MAX_CUSTOM_FIELDS} custom fields`, type: 'value_error' },
    ]);
  if (def.required && def.default === null) {
    const count = await breakingCount(def, await projectItemValues(def.project_id));
    if (count) throw wouldBreak(count);
  }
  await transact([
    putNewStep(customFieldEntity.encode(keys.customField(def.project_id, def.key), def), CASCADE_STALE),
    catalogueMoveStep(catalogue, 1),
    ...definitionCreatedAudit(ctx, def),
  ]);
  return def;
}

export const updateCustomField = (
  ctx: AppContext,
  input: UpdateCustomFieldInput & { project_id: string; key: string },
): Promise<CustomFieldDefinition> => retryWhenStale(() => updateOnce(ctx, input));

async function updateOnce(ctx: AppContext, input: UpdateCustomFieldInput & { project_id: string; key: string }) {
  const { project_id: projectId, key, ...patch } = input;
  const { access, catalogue } = await manage(ctx, projectId);
  const before = catalogue.definitions.find((d) => d.key === key);
  if (!before) throw notFound(CUSTOM_FIELD_NOT_FOUND);
  if (before.status === 'deleting') throw conflict(CUSTOM_FIELD_BEING_DELETED);
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const after: CustomFieldDefinition = { ...before, ...given, updated_at: ctx.clock.now().toISOString() };
  // A type change leaves the old type's settings behind unless they are given anew.
  if (patch.type && patch.type !== before.type) {
    for (const f of ['choices', 'pattern', 'min', 'max', 'default'] as const)
      if (patch[f] === undefined) (after as Record<string, unknown>)[f] = null;
  }
  await refuseIssues(after);
  const rules = ['type', 'applies_to', 'required', 'default', 'choices', 'pattern', 'min', 'max'] as const;
  if (rules.some((f) => JSON.stringify(after[f]) !== JSON.stringify(before[f]))) {
    const count = await breakingCount(after, await projectItemValues(projectId));
    if (count) throw wouldBreak(count);
  }
  const audit = definitionChanged(before, after)
    ? definitionChangeAudit(ctx, 'update', before, after, await retentionOfProject(access.project))
    : undefined;
  const stored = audit ? { ...after, audit_head: audit.head } : after;
  await transact([
    putWhenStep(
      customFieldEntity.encode(keys.customField(projectId, key), stored),
      { updated_at: before.updated_at },
      CASCADE_STALE,
    ),
    catalogueMoveStep(catalogue, 0),
    ...(audit?.steps ?? []),
  ]);
  return stored;
}
