import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { putNewStep, putWhenStep, unchangedStep } from '#db/steps';
import { CASCADE_STALE, type TransactStep } from '#db/transact';
import { unprocessable, type DomainError } from '#shared/errors';
import {
  customFieldEntity,
  customFieldMetaEntity,
  type CustomFieldDefinition,
  type CustomFieldKind,
  type CustomFieldMeta,
  type CustomValues,
} from './definition-entity.ts';
import { matchersOf, type Matcher } from './patterns.ts';

export { customFieldsInput } from './input.ts';
import { resolveValues, type ValueProblem } from './values.ts';

/**
 * A project's catalogue of custom fields as one read: its definitions and its state (count and
 * version), one Query of `CF#` (keys.ts). Every write of an item's values reads it beside the
 * write's own reads (the same round trip) and holds its transaction on the version read
 * (`catalogueUnchangedStep`), so no item is written under a definition changed meanwhile.
 */
export interface Catalogue {
  projectId: string;
  definitions: CustomFieldDefinition[];
  /** Absent: the project never had a definition. */
  meta: CustomFieldMeta | null;
}

export async function readCatalogue(projectId: string): Promise<Catalogue> {
  const items = await queryPrefix(projectId, keys.customFieldsPrefix);
  const metaSk = keys.customFieldMeta(projectId).SK;
  const meta = items.find((i) => i.SK === metaSk);
  return {
    projectId,
    definitions: items.filter((i) => i.SK !== metaSk).map(customFieldEntity.decode),
    meta: meta ? customFieldMetaEntity.decode(meta) : null,
  };
}

/**
 * The transaction holds only while the catalogue's version is the one read (a lost race re-runs the
 * write from a new read). `failWith`: the refusal (CASCADE_STALE unless the caller tells it apart).
 */
export const catalogueUnchangedStep = (c: Catalogue, failWith: DomainError = CASCADE_STALE): TransactStep =>
  unchangedStep(keys.customFieldMeta(c.projectId), c.meta ? { version: c.meta.version } : null, failWith);

/** The catalogue's state moved on by a change of its definitions (`countBy`: +1 a new one, -1 a removed one), held on the state read. */
export function catalogueMoveStep(c: Catalogue, countBy: number): TransactStep {
  const key = keys.customFieldMeta(c.projectId);
  const next = { count: (c.meta?.count ?? 0) + countBy, version: (c.meta?.version ?? 0) + 1 };
  const item = customFieldMetaEntity.encode(key, next);
  return c.meta ? putWhenStep(item, { version: c.meta.version }, CASCADE_STALE) : putNewStep(item, CASCADE_STALE);
}

/** The problems as a 422, each naming `custom_fields.<key>` (under the request's body). */
export const valueRefusal = (problems: ValueProblem[], at: (string | number)[] = ['body']) =>
  unprocessable(problems.map((p) => ({ loc: [...at, 'custom_fields', p.key], msg: p.msg, type: 'value_error' })));

/**
 * An item's values after a write (create: `current` undefined), checked against the catalogue:
 * refused with 422 naming each `custom_fields.<key>` at fault.
 */
export async function valuesForWrite(
  c: Catalogue,
  kind: CustomFieldKind,
  given: Record<string, unknown> | null | undefined,
  current?: CustomValues,
): Promise<CustomValues> {
  const { values, problems } = resolveValues(kind, given, c.definitions, await matchersOf(c.definitions), current);
  if (problems.length) throw valueRefusal(problems);
  return values;
}

/**
 * The values an item made by the product itself (discovery's floors) starts with: each definition's
 * default. Nothing is refused: a required field without a default stays empty until someone sets it.
 */
export const defaultValues = (c: Catalogue, kind: CustomFieldKind): CustomValues =>
  resolveValues(kind, undefined, c.definitions, new Map()).values;

/** The catalogue with its patterns compiled: what an import checks each document entity's values with. */
export interface ValueRules {
  catalogue: Catalogue;
  matchers: Map<string, Matcher>;
}
export async function readValueRules(projectId: string): Promise<ValueRules> {
  const catalogue = await readCatalogue(projectId);
  return { catalogue, matchers: await matchersOf(catalogue.definitions) };
}

/**
 * A document entity's values, its whole state (as every field of a document): the given ones, each
 * missing one's default, a missing required one a problem; any problem names its key.
 */
export const documentValues = (
  rules: ValueRules,
  kind: CustomFieldKind,
  given: Record<string, unknown> | null | undefined,
) => resolveValues(kind, given, rules.catalogue.definitions, rules.matchers);
