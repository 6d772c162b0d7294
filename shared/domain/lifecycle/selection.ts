/** What can be archived and restored (SPEC "/me/mark-archived", "/me/archived/*"), in the order lists and mails show them. */
export const ARCHIVABLE_KINDS = ['services', 'environments', 'project_users', 'api_keys', 'service_floors'] as const;
export type ArchivableKind = (typeof ARCHIVABLE_KINDS)[number];

/** Ids chosen per kind (POST /me/mark-archived, POST /me/unarchive; the enforcement's own choice). */
export type Selection = Partial<Record<ArchivableKind, string[]>>;

/** What an archive run did, per kind: the items (id and a name a person recognises) for replies and mails. */
export type ArchiveReport = Record<ArchivableKind, { id: string; name: string }[]>;
