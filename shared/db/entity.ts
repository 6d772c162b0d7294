import * as z from 'zod';
import type { Key } from './batch-get.ts';

/**
 * Entity definitions: each aggregate (service, service floor; networks and connections follow) is
 * declared once, in `<name>-entity.ts` beside its domain module, and everything else derives from it:
 *
 *   export const serviceEntity = defineEntity('service', z.object({ ...the fields its item stores... }));
 *   export type Service = z.infer<typeof serviceEntity.schema>;
 *   export const serviceView = defineView(serviceEntity, { id: true, ..., type: z.string(), ... });
 *   export type ServiceOut = z.infer<typeof serviceView.schema>;
 *
 * - The item schema lists the stored fields, key attributes (PK, SK, the kind in `type`) left out.
 *   A field's `.default(v)` is its value on a new item and on an older item that lacks it.
 * - `entity.create(fields)` builds a new item (defaults filled in); `entity.encode(key, item)` is
 *   what is written (`putNewStep(entity.encode(key, item))`); `entity.decode(raw)` is how every
 *   read item enters the domain, never a cast (`entity.decodeFound(raw)` when the read may have
 *   found nothing): key attributes and unknown attributes dropped, defaults applied where a field
 *   is missing (or null where the schema allows no null).
 * - The view is the client's answer, in answer order: `true` for a stored field answered under its
 *   own name, the stored name when answered under another one (`type: 'floor_type'`), a schema
 *   for a field resolved from other items (given to `project`). `view.schema` is the route's
 *   response schema; `view.project(item, resolved)` the answer.
 *
 * Decoding is deliberately not a zod parse: lists decode up to 1,000 items per request, so
 * `decode` and `project` are plain copies, compiled once from the schema (see `compile`). Values
 * are not re-validated on read: the request schemas validated them on the way in.
 */

type AnyShape = Record<string, z.ZodType>;
type Item<S extends AnyShape> = z.output<z.ZodObject<S>>;

export interface Entity<S extends AnyShape> {
  /** The item kind, stored in the item's `type` attribute. */
  kind: string;
  schema: z.ZodObject<S>;
  /** Its schema is built at first use (`defineEntity` was given a function). */
  lazy?: boolean;
  /** A read item → the entity: known fields only, defaults for missing ones. */
  decode(raw: object): Item<S>;
  /** `decode` of what a read found, or undefined when it found nothing (a GetItem's `Item`, a BatchGet's `get`). */
  decodeFound(raw: object | undefined): Item<S> | undefined;
  /** A new item from its given fields, the others at their defaults. */
  create(fields: z.input<z.ZodObject<S>>): Item<S>;
  /** The item to write under `key`. */
  encode(key: Key, item: Item<S>): Record<string, unknown>;
}

/**
 * `schema` may be given as a function that builds it: it is then built at its first use (a decode,
 * a view's schema, the OpenAPI document), not at import. A function's bundle defines a dozen entities
 * and their views and a request reads one or two; building their zod schemas at import was a few
 * milliseconds of every cold start (docs/cold-start.md).
 */
export function defineEntity<S extends AnyShape>(
  kind: string,
  schemaOrMake: z.ZodObject<S> | (() => z.ZodObject<S>),
): Entity<S> {
  let built: z.ZodObject<S> | undefined = typeof schemaOrMake === 'function' ? undefined : schemaOrMake;
  const schemaOf = () => (built ??= (schemaOrMake as () => z.ZodObject<S>)());
  const defaults: (() => unknown)[] = [];
  // Built on the first decode, not at import: a function's bundle defines dozens of entities and
  // uses few of them per request (cold start, docs/cold-start.md).
  const build = () => {
    const always: string[] = [];
    const whenPresent: string[] = [];
    for (const [name, field] of Object.entries(schemaOf().shape as AnyShape)) {
      const key = JSON.stringify(name);
      if (field instanceof z.ZodDefault) {
        const d = defaults.push(() => (field as z.ZodDefault).def.defaultValue) - 1;
        // Missing, or null where the field allows no null (e.g. a list): the default.
        const absent = field.safeParse(null).success ? 'v === undefined' : 'v == null';
        always.push(`${key}: (v = x[${key}], ${absent} ? d[${d}]() : v)`);
      } else if (field.safeParse(undefined).success) {
        whenPresent.push(`if (x[${key}] !== undefined) o[${key}] = x[${key}];`);
      } else {
        always.push(`${key}: x[${key}]`);
      }
    }
    return compile<(x: Record<string, unknown>, d: (() => unknown)[]) => Record<string, unknown>>(
      'x, d',
      `let v; const o = { ${always.join(', ')} }; ${whenPresent.join(' ')} return o;`,
    );
  };
  let copy: ReturnType<typeof build> | undefined;
  const decode = (raw: object) => (copy ??= build())(raw as Record<string, unknown>, defaults) as Item<S>;
  return {
    kind,
    get schema() {
      return schemaOf();
    },
    lazy: !built,
    decode,
    decodeFound: (raw) => (raw === undefined ? undefined : decode(raw)),
    create: decode,
    encode: (key, item) => ({ ...key, type: kind, ...item }),
  };
}

/**
 * A copying function compiled once from an entity's field names (JSON-quoted: its source never
 * contains data). It builds its result as one object literal, so every copy has the same shape:
 * on 1,000 items that is some 50 times faster than a loop of keyed assignments.
 */
function compile<F>(params: string, body: string): F {
  return new Function(params, `'use strict'; ${body}`) as F;
}

/**
 * What a view field is: a stored field (same name: `true`; renamed: its stored name) or a resolved one (its
 * schema, or a function building it at the view's first use, so that no schema is built at import).
 */
type Resolved = z.ZodType | (() => z.ZodType);
type ViewSpec<S extends AnyShape> = Record<string, true | (keyof S & string) | Resolved>;
type SchemaOf<R> = R extends z.ZodType ? R : R extends () => infer T ? (T extends z.ZodType ? T : never) : never;
type WithoutDefault<T> = T extends z.ZodDefault<infer I extends z.ZodType> ? I : T;
type ViewShape<S extends AnyShape, V extends ViewSpec<S>> = {
  [K in keyof V]: V[K] extends true
    ? WithoutDefault<S[K & keyof S]>
    : V[K] extends keyof S
      ? WithoutDefault<S[V[K]]>
      : V[K] extends Resolved
        ? SchemaOf<V[K]>
        : never;
};
type ResolvedOf<V> = { [K in keyof V as V[K] extends Resolved ? K : never]: z.output<SchemaOf<V[K]>> };
type ProjectArgs<V> = keyof ResolvedOf<V> extends never ? [] : [resolved: ResolvedOf<V>];

export interface View<S extends AnyShape, V extends ViewSpec<S>> {
  /** The response schema (for the route and the OpenAPI document). */
  schema: z.ZodObject<ViewShape<S, V>>;
  /** The answer for one item (with the values resolved from other items, when the view has some). */
  project(item: Item<S>, ...resolved: ProjectArgs<V>): z.output<z.ZodObject<ViewShape<S, V>>>;
}

export function defineView<S extends AnyShape, const V extends ViewSpec<S>>(entity: Entity<S>, spec: V): View<S, V> {
  // Built at the first answer or the first read of `schema`, not at import (as an entity's schema).
  let built: { shape: AnyShape; answer: string[] } | undefined;
  const build = () => {
    const shape: AnyShape = {};
    const answer: string[] = [];
    for (const [name, from] of Object.entries(spec)) {
      const key = JSON.stringify(name);
      if (from === true || typeof from === 'string') {
        const stored = from === true ? name : from;
        const field = (entity.schema.shape as AnyShape)[stored];
        if (!field) throw new Error(`${entity.kind} view: no stored field ${stored}`);
        shape[name] = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field;
        answer.push(`${key}: x[${JSON.stringify(stored)}]`);
      } else {
        shape[name] = typeof from === 'function' ? from() : from;
        answer.push(`${key}: r[${key}]`);
      }
    }
    return { shape, answer };
  };
  // A view naming a field its entity does not store is refused at definition when the entity's schema
  // is built already; over a lazy entity, at its first use (the OpenAPI document uses every view).
  if (!entity.lazy) built = build();
  type Project = (x: Item<S>, r?: Record<string, unknown>) => Record<string, unknown>;
  let compiled: Project | undefined;
  let schema: z.ZodObject<AnyShape> | undefined;
  const project: Project = (x, r) =>
    (compiled ??= compile<Project>('x, r', `return { ${(built ??= build()).answer.join(', ')} };`))(x, r);
  return {
    get schema() {
      return (schema ??= z.object((built ??= build()).shape));
    },
    project,
  } as unknown as View<S, V>;
}
