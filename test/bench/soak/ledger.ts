/**
 * What the soak's clients were told, kept client-side: an entity is `acked` when its create was answered
 * 2xx, `uncertain` when an answer never came (the write may or may not have happened), `deleted` when its
 * delete was answered 204 (or 404 after a retry: gone either way). The invariants compare the product with this.
 */
export type Kind = 'service' | 'floor' | 'network' | 'connection';

export interface Entry {
  kind: Kind;
  id?: string;
  /** Unique per run by construction: a second item of the same name is a duplicate made by a retry. */
  name: string;
  envId: string;
  created: 'acked' | 'uncertain';
  deleted: 'no' | 'acked' | 'uncertain';
  /** The last acknowledged value of the field updates change, and values of updates with no answer. */
  value: string;
  maybeValues: Set<string>;
  /** Changes answered 2xx (create, updates, delete) and changes that got no answer: the audit log's bounds. */
  ackedChanges: number;
  uncertainChanges: number;
  /** Each write and how it ended (`update 200`, `delete 404`, …): what a violation's report shows. */
  history: string[];
  /** For connections: the services at its ends (a service's delete removes its connections). */
  ends?: [string, string];
}

export class Ledger {
  readonly entries: Entry[] = [];
  readonly byId = new Map<string, Entry>();

  add(e: Omit<Entry, 'maybeValues' | 'ackedChanges' | 'uncertainChanges' | 'deleted' | 'history'>): Entry {
    const entry: Entry = {
      ...e,
      deleted: 'no',
      history: [`create ${e.created}`],
      maybeValues: new Set(),
      ackedChanges: e.created === 'acked' ? 1 : 0,
      uncertainChanges: e.created === 'acked' ? 0 : 1,
    };
    this.entries.push(entry);
    if (entry.id) this.byId.set(entry.id, entry);
    return entry;
  }

  /** Whether a live connection already joins `a` to `b` (SPEC refuses a second one in the same direction). */
  connected(a: string, b: string): boolean {
    return this.entries.some(
      (e) => e.kind === 'connection' && e.deleted === 'no' && e.ends?.[0] === a && e.ends?.[1] === b,
    );
  }

  /** Entries a client may still change: created, answered, not deleted, nothing uncertain about them. */
  live(kind: Kind, envId: string): Entry[] {
    return this.entries.filter(
      (e) => e.kind === kind && e.envId === envId && e.id && e.created === 'acked' && e.deleted === 'no',
    );
  }
}
