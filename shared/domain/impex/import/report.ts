import type { DocumentConnection, DocumentConnectionEnd } from '../document.ts';
import type { ImportError } from '../parse.ts';

/** What an import reports: an item per entity with its action, the problems, a summary. */

export type ImportAction = 'create' | 'update' | 'unchanged' | 'error';
export interface ImportItem {
  kind: string;
  name: string;
  action: ImportAction;
  detail?: string;
}
export interface ImportReport {
  /** Items by action; `error` is the number of problems (`errors`). */
  summary: { create: number; update: number; unchanged: number; error: number };
  items: ImportItem[];
  errors: ImportError[];
  /** What a plan was made against (fingerprint.ts): a saved plan hands it back to be applied only to the environment as it was. */
  fingerprint?: string;
  /** What the environment has that the document lacks (extras.ts): listed by every plan, deleted by an import with `prune`. */
  extras?: Extra[];
  /** What an import with `prune` deleted (of its extras). */
  deleted?: Extra[];
}

/** An item of the environment the document lacks, by the report's kind, its id and how the report names it. */
export interface Extra {
  kind: (typeof KIND)[keyof typeof KIND];
  id: string;
  name: string;
}

export const KIND = {
  group: 'group',
  subgroup: 'subgroup',
  floor: 'service_floor',
  network: 'network',
  service: 'service',
  link: 'service_link',
  connection: 'service_connection',
  chain: 'connection_group',
} as const;

const ARROWS = { none: '--', a_to_b: '->', b_to_a: '<-', both: '<->' } as const;
const endLabel = (e: DocumentConnectionEnd) => e.service ?? `floor ${e.service_floor}`;
/** How the report names a connection: its ends and an arrow for its direction. */
export const connectionLabel = (c: DocumentConnection) => `${endLabel(c.a)} ${ARROWS[c.direction]} ${endLabel(c.b)}`;

export function summarize(items: ImportItem[], errors: ImportError[]): ImportReport['summary'] {
  const count = (a: ImportAction) => items.filter((i) => i.action === a).length;
  return { create: count('create'), update: count('update'), unchanged: count('unchanged'), error: errors.length };
}
