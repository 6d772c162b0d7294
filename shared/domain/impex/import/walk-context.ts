import { keys } from '#db/keys';
import type { Key } from '#db/batch-get';
import type { AppContext } from '#shared/context';
import type { CounterLimit } from '#db/counter-moves';
import { documentValues, type CustomFieldKind, type Listable, type Listing } from '#domain/catalog';
import { ENV_NOT_IN_PROJECT } from '#domain/tenancy';
import type { EnvironmentDocument } from '../document.ts';
import { pointer, type ImportError } from '../parse.ts';
import type { Path } from '../problems.ts';
import type { EnvironmentContents } from '../read.ts';
import type { ImportAction } from './report.ts';
import type { Unit } from './units.ts';
import { changed, same } from './compare.ts';

/**
 * Where the walk of a document hands what it plans. Planning keeps the report and counts the units;
 * applying writes the units (the report's indices come again in the same order) and ignores the rest.
 */
export interface Sink {
  /** Records a report item; returns its index. */
  record(kind: string, name: string, action: ImportAction, detail?: string): number;
  error(e: ImportError): void;
  /** Units planned, in document order (a slice at a time). */
  units(units: Unit[]): Promise<void>;
  /** No unit of this phase or an earlier one comes any more. */
  close(phase: number): Promise<void>;
}

/** The changed fields as the plan names them: a custom field as `custom_fields.<key>`. */
function changedNames(existing: Record<string, unknown>, changes: Record<string, unknown>): string[] {
  return Object.keys(changes).flatMap((k) => {
    if (k !== 'custom_fields') return [k];
    const [was, is] = [(existing[k] ?? {}) as Record<string, unknown>, (changes[k] ?? {}) as Record<string, unknown>];
    return [...new Set([...Object.keys(was), ...Object.keys(is)])]
      .filter((key) => !same(was[key], is[key]))
      .sort()
      .map((key) => `custom_fields.${key}`);
  });
}

/** Units per slice of the document handed to the sink (apply writes them before planning on). */
const SLICE = 250;

/** What a walk plans from: the document, the environment as read, and the service limit its creates move counters within. */
export interface WalkInput {
  projectId: string;
  envId: string;
  doc: EnvironmentDocument;
  env: EnvironmentContents;
  serviceLimit: CounterLimit;
}

/** What every phase of the walk plans with: the walk's input, the units planned so far and the helpers that plan one entity. */
export function walkContext(input: WalkInput, ctx: AppContext, sink: Sink) {
  const { projectId, envId, doc, env, serviceLimit } = input;
  const spec = doc.spec;
  const units: Unit[] = [];
  const envKey = keys.environment(projectId, envId);
  const envGone = ENV_NOT_IN_PROJECT;
  /** Runs `plan` over `xs`, handing the units on every SLICE entities (once a slice's units are complete: callers amend the unit they just planned). */
  const each = async <T>(xs: T[], plan: (x: T, i: number) => void) => {
    for (let i = 0; i < xs.length; i++) {
      plan(xs[i], i);
      if (i % SLICE === SLICE - 1 && units.length) await sink.units(units.splice(0));
    }
    if (units.length) await sink.units(units.splice(0));
  };

  const record = sink.record.bind(sink);
  const ambiguous = (path: Path, kind: string, name: string, what: string, n: number) => {
    sink.error({
      path: pointer(path),
      line: null,
      message: `${n} ${what} named '${name}' exist in the environment: the import cannot tell which one is meant (rename one first)`,
    });
    record(kind, name, 'error', 'ambiguous name in the environment');
  };
  /** Create or update (only what differs) or unchanged; the unit planned, if any. */
  const planEntity = (
    kind: string,
    name: string,
    phase: number,
    existing: Record<string, unknown> | undefined,
    wanted: Record<string, unknown>,
    create: () => Unit['create'],
    key: () => Key,
    gone: string,
    extra: Partial<Unit> = {},
  ): Unit | undefined => {
    if (!existing) {
      return units[
        units.push({
          item: record(kind, name, 'create'),
          phase,
          create: create(),
          guards: [],
          counters: [],
          ...extra,
        }) - 1
      ];
    }
    const changes = changed(existing, wanted);
    if (!Object.keys(changes).length) {
      record(kind, name, 'unchanged');
      return undefined;
    }
    const audit = {
      id: String(existing.id),
      head: (existing.audit_head as string | undefined) ?? null,
      before: Object.fromEntries(Object.keys(changes).map((k) => [k, existing[k] ?? null])),
    };
    return units[
      units.push({
        item: record(kind, name, 'update', `changed: ${changedNames(existing, changes).join(', ')}`),
        phase,
        update: { key: key(), changes, gone, audit },
        guards: [],
        counters: [],
        ...extra,
      }) - 1
    ];
  };
  /**
   * A document entity's custom field values (its whole set: defaults for missing ones), or, when one
   * is not valid, undefined: each problem reported at `<path>/custom_fields/<key>` and the entity an error.
   */
  const customValues = (
    kind: CustomFieldKind,
    given: Record<string, unknown> | null | undefined,
    path: Path,
    label: string,
    name: string,
  ) => {
    const { values, problems } = documentValues(env.valueRules, kind, given);
    if (!problems.length) return values;
    for (const p of problems)
      sink.error({
        path: pointer([...path, 'custom_fields', p.key]),
        line: null,
        message: `custom_fields.${p.key}: ${p.msg}`,
      });
    record(label, name, 'error', problems.map((p) => `custom_fields.${p.key}: ${p.msg}`).join('; '));
    return undefined;
  };
  /** An update of a listed entity also writes its listing, exact through the condition on the listed fields it does not change. */
  const withListing = <T extends Listable>(unit: Unit | undefined, listing: Listing<T>, existing: T | undefined) => {
    const changes = unit?.update?.changes as Partial<T> | undefined;
    if (!unit?.update || !existing || !changes || !listing.touches(changes)) return;
    unit.update.listing = {
      steps: listing.steps(existing, { ...existing, ...changes }),
      asRead: listing.asRead(existing),
    };
  };
  return {
    projectId,
    envId,
    spec,
    env,
    ctx,
    sink,
    units,
    envKey,
    envGone,
    serviceLimit,
    each,
    record,
    ambiguous,
    planEntity,
    withListing,
    customValues,
  };
}
export type WalkContext = ReturnType<typeof walkContext>;
