import type { AppContext } from '#shared/context';
import { chosenCoding, compressedJson } from '#http/compress';
import type { Reply } from '#http/route';
import { environmentTopology } from '#domain/catalog';

/**
 * The last few topology answers this process made, by ETag and the coding chosen for them (not the raw
 * Accept-Encoding header, which browsers and clients word differently): the same version of an environment
 * asked again (another member, another tab) is sent as it is, its buckets not read again.
 * An ETag names the snapshot's generation and version and what the caller may see (decision 1001).
 */
const recentAnswers = new Map<string, Reply>();
const KEPT_ANSWERS = 4;
function keep(key: string, reply: Reply): Reply {
  recentAnswers.set(key, reply);
  while (recentAnswers.size > KEPT_ANSWERS) recentAnswers.delete(recentAnswers.keys().next().value!);
  return reply;
}

/** Whether an If-None-Match header names this ETag (weak or strong; a list). */
const holds = (ifNoneMatch: string | undefined, etag: string) =>
  (ifNoneMatch ?? '').split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);

/**
 * GET /topology's answer: 304 (no body) when the caller's If-None-Match names the current version; the
 * answer this process keeps for that version and encoding; else the topology, compressed as the
 * caller's Accept-Encoding allows, with its ETag.
 */
export async function topologyAnswer(
  ctx: AppContext,
  query: { project_id: string; environment_id: string },
  headers: Record<string, string | undefined>,
): Promise<Reply> {
  const coding = chosenCoding(headers['accept-encoding']);
  const kept = (etag: string) => recentAnswers.get(`${etag}|${coding}`);
  const callerHas = (etag: string) => holds(headers['if-none-match'], etag);
  const { etag, topology } = await environmentTopology(ctx, query, (e) => callerHas(e) || !!kept(e));
  if (!topology) return (!callerHas(etag) && kept(etag)) || { status: 304, headers: { etag } };
  return keep(`${etag}|${coding}`, compressedJson(topology, coding, { etag }));
}
