/**
 * Paged lists as async iterators. Two kinds exist in the API: offset/limit lists (`GET /services`:
 * a page shorter than the limit is the last) and cursor lists (`X-Next-Cursor` header on the answer;
 * absent on the last page: audit logs, the security log). The page fetchers are the typed client's
 * own calls, so the items keep the generated types.
 */

type Page<T> = Promise<{ data?: T[]; response: Response }>;

/** Walks an offset/limit list to its end, page by page: `fetchPage({offset, limit})` is asked for page after page. */
export async function* eachOffsetPage<T>(
  fetchPage: (page: { offset: number; limit: number }) => Page<T>,
  opts: { limit?: number } = {},
): AsyncGenerator<T[], void, undefined> {
  const limit = opts.limit ?? 200;
  for (let offset = 0; ; ) {
    const { data = [] } = await fetchPage({ offset, limit });
    yield data;
    if (data.length < limit) return;
    offset += data.length;
  }
}

/** Walks an offset/limit list to its end, item by item. */
export async function* offsetPages<T>(
  fetchPage: (page: { offset: number; limit: number }) => Page<T>,
  opts: { limit?: number } = {},
): AsyncGenerator<T, void, undefined> {
  for await (const page of eachOffsetPage(fetchPage, opts)) yield* page;
}

/** One page of a cursor list: its items and the cursor of the next page (`X-Next-Cursor`; none on the last page). */
export async function cursorPage<T>(call: Page<T>): Promise<{ items: T[]; next?: string }> {
  const { data = [], response } = await call;
  return { items: data, next: response.headers.get('x-next-cursor') ?? undefined };
}

/** Walks a cursor list to its end, following `X-Next-Cursor`. */
export async function* cursorPages<T>(
  fetchPage: (cursor: string | undefined) => Page<T>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await cursorPage(fetchPage(cursor));
    yield* page.items;
    cursor = page.next;
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
