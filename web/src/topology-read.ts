import { ApiError } from '@infracat/client/errors';
import { api, type Topology } from './api';

/**
 * GET /topology with the copy this tab last read: the answer's ETag goes back as If-None-Match, and a
 * 304 (the environment's snapshot has not changed) answers with the copy held, nothing downloaded.
 * The last few environments read are held, in memory only.
 */
const HELD = 3;
const held = new Map<string, { etag: string; data: Topology }>();

export async function readTopology(
  scope: { project_id: string; environment_id: string },
  signal?: AbortSignal,
): Promise<Topology> {
  const key = `${scope.project_id}:${scope.environment_id}`;
  const have = held.get(key);
  try {
    const { data, response } = await api.GET('/topology', {
      params: { query: scope },
      headers: have ? { 'if-none-match': have.etag } : {},
      signal,
    });
    const etag = response.headers.get('etag');
    held.delete(key);
    if (etag && data) held.set(key, { etag, data });
    while (held.size > HELD) held.delete(held.keys().next().value!);
    return data!;
  } catch (err) {
    if (have && err instanceof ApiError && err.status === 304) return have.data;
    throw err;
  }
}
