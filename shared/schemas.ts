import * as z from 'zod';
import { lazySchema } from './lazy-schema.ts';

/** Field schemas used by both domain entities and route declarations (no HTTP in here). */
/** Each built at its first use (shared/lazy-schema.ts), as every schema a module defines: none is built at import. */
export const uuid = lazySchema(() => z.uuid());
export const email = lazySchema(() => z.email().max(254));
export const isoTimestamp = lazySchema(() => z.iso.datetime({ offset: true }));
/** Nullable optional free text with a length cap. */
export const text = (max: number) => z.string().max(max).nullish();
/** A display name: trimmed, non-empty. */
export const name = (max = 200) => z.string().trim().min(1).max(max);
