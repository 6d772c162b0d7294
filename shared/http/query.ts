/** Query string → object; a repeated parameter (`tags=a&tags=b`) becomes an array. API Gateway's own map joins them with commas, so the raw string is used. */
export function parseQuery(raw: string | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw ?? '')) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
