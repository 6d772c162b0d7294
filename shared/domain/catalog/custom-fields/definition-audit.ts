import { changeAudit, creationAudit } from '#shared/audit';
import type { AppContext } from '#shared/context';
import { customFieldView, type CustomFieldDefinition } from './definition-entity.ts';

/**
 * A definition's audit entries (`custom_field.create`, `.update`, `.delete`), steps of the transaction
 * that makes the change, as a custom role's are. The definition has no id: its key, unique in the
 * project and what its routes name it by, is the entries' `entity_id`; an entry shows what GET answers.
 */
const AUDIT_KIND = 'custom_field';

const entity = (d: CustomFieldDefinition) => ({ id: d.key, project_id: d.project_id, audit_head: d.audit_head });
/** Its `type` as `field_type`: an entry leaves out `type`, the stored items' own attribute (as a floor's is `floor_type`). */
const shown = (d: CustomFieldDefinition): Record<string, unknown> => {
  const { type, ...rest } = customFieldView.project(d);
  return { ...rest, field_type: type };
};

export const definitionCreatedAudit = (ctx: AppContext, d: CustomFieldDefinition) =>
  creationAudit(ctx, AUDIT_KIND, entity(d), shown(d));

/** Whether a change shows in an entry (a PATCH that repeats the values changes only `updated_at`). */
export const definitionChanged = (before: CustomFieldDefinition, after: CustomFieldDefinition) =>
  JSON.stringify({ ...shown(before), updated_at: null }) !== JSON.stringify({ ...shown(after), updated_at: null });

/** An update's or a deletion's entry (`after` null): `head` is what the definition's write stores as `audit_head`. */
export const definitionChangeAudit = (
  ctx: AppContext,
  verb: 'update' | 'delete',
  before: CustomFieldDefinition,
  after: CustomFieldDefinition | null,
  days: number | null,
) => changeAudit(ctx, AUDIT_KIND, verb, entity(before), { before: shown(before), after: after && shown(after) }, days);
