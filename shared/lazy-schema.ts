import type * as z from 'zod';

/**
 * A schema built at its first use, not at import: building zod 4 schemas at module load costs every
 * function that bundles the module (about 5 ms of CPU for the queue messages' few schemas; see
 * docs/cold-start.md and docs/decisions/0120-workers-what-changed-failure-lines-what-did-not-move-the.md), and most functions that
 * queue a message never parse one.
 */
export function lazySchema<S extends z.ZodType>(make: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= make());
}

/** The same for a shape (field name → schema) that several schemas spread: its schemas built at its first use. */
export function lazyShape<T extends Record<string, z.ZodType>>(make: () => T): () => T {
  let shape: T | undefined;
  return () => (shape ??= make());
}
