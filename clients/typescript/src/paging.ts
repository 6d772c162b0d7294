/**
 * Paged lists as async iterators. Two kinds exist in the API: offset/limit lists (`GET /services`:
 * a page shorter than the limit is the last) and cursor lists (`X-Next-Cursor` header on the answer;
 * absent on the last page: audit logs, the security log). The page fetchers are the typed client's
 * own calls, so the items keep the generated types.
 */

type Page<T> = Promise<{ data?: T[]; response: Response }>;

/** Walks an offset/limit list to its end: `fetchPage({offset, limit})` is asked for page after page. */
export async function* offsetPages<T>(fetchPage: (page: { offset: number; limit: number }) => Page<T>, opts: { limit?: number } = {}): AsyncGenerator<T, void, undefined> {
  const limit = opts.limit ?? 200;
  for (let offset = 0; ; ) {
    const { data = [] } = await fetchPage({ offset, limit });
    yield* data;
    if (data.length < limit) return;
    offset += data.length;
  }
}

/** Walks a cursor list to its end, following `X-Next-Cursor`. */
export async function* cursorPages<T>(fetchPage: (cursor: string | undefined) => Page<T>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data = [], response } = await fetchPage(cursor);
    yield* data;
    cursor = response.headers.get('x-next-cursor') ?? undefined;
  } while (cursor);
}

/** Collects an async iterator into an array (at most `max` items). */
export async function collect<T>(items: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    if (out.length >= max) break;
    out.push(item);
  }
  return out;
}
