import * as z from 'zod';

/** Field schemas used by both domain entities and route declarations (no HTTP in here). */
export const uuid = z.uuid();
export const email = z.email().max(254);
export const isoTimestamp = z.iso.datetime({ offset: true });
/** Nullable optional free text with a length cap. */
export const text = (max: number) => z.string().max(max).nullish();
/** A display name: trimmed, non-empty. */
export const name = (max = 200) => z.string().trim().min(1).max(max);
