import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { keys } from '#db/keys';
import type { Key } from '#db/batch-get';
import { ARCHIVABLE_KINDS, type ArchivableKind } from './selection.ts';

/**
 * The archived marker (internal, no view): one item per archived resource under its owner,
 * `USER#<ownerId>` / `ARCHIVED#<kind>#<id>`, written in the transaction that archives the resource
 * and deleted in the one that restores it. It says where the resource lives, so the summary and
 * the `/me/archived/*` lists start from one Query and restore finds an id of the caller's without
 * a lookup (a foreign id has no marker under the caller).
 */
export const archivedEntity = defineEntity('archived', () =>
  z.object({
    kind: z.enum(ARCHIVABLE_KINDS),
    id: z.uuid(),
    /** null for API keys (they belong to the account, not to a project). */
    project_id: z.uuid().nullable().default(null),
    /** The environment of a service or floor; an environment's own id; null otherwise. */
    environment_id: z.uuid().nullable().default(null),
    name: z.string(),
    archived_at: z.string(),
    item_pk: z.string(),
    item_sk: z.string(),
  }),
);
export type ArchivedMarker = z.infer<typeof archivedEntity.schema>;

export const markerKey = (ownerId: string, kind: ArchivableKind, id: string) => keys.archived(ownerId, kind, id);
export const itemKeyOf = (m: Pick<ArchivedMarker, 'item_pk' | 'item_sk'>): Key => ({ PK: m.item_pk, SK: m.item_sk });

/** The marker item to write under the owner. */
export const markerItem = (ownerId: string, m: ArchivedMarker) =>
  archivedEntity.encode(markerKey(ownerId, m.kind, m.id), m);
