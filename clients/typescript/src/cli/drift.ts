/**
 * What the environment has that the document does not, as the server's plan lists it
 * (`report.extras`; the rule is the server's, shared/domain/impex/import/extras.ts): every plan shows
 * it, `--prune` has the import's job delete it under the environment's lock.
 */
export interface Extra {
  kind: string;
  id: string;
  name: string;
}

/** "2 services and 1 service_connection" */
export function countsOf(extras: Extra[]): string {
  const counts = new Map<string, number>();
  for (const e of extras) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? 'nothing');
}
