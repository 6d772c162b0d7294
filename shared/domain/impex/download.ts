import { notFound } from '#shared/errors';
import { documentDownloadUrl } from '#shared/storage';
import type { AppContext } from '#shared/context';
import { verifyDownloadLink } from './links.ts';
import { RECORD_NOT_FOUND, recordById } from './records.ts';

/** An export's download: the signed link checked, then a short-lived presigned URL of the document. */

/**
 * GET /impex/download/{record_id}?exp=&sig=: the export document. The link is checked first (a
 * signature that does not match, 403; a genuine one past its expiry, 410 'Link expired'), then the
 * caller must be a member of the record's project.
 */
/** How long a presigned URL minted for a download lives at most: each visit of the link mints a fresh one. */
const PRESIGNED_SECONDS = 15 * 60;

/**
 * GET /impex/download/{record_id}?exp&sig: the signed link is the credential, as a presigned URL is:
 * checked, it answers the export's presigned S3 URL, valid for what is left of the link's
 * life (at most 15 minutes: the link mints a new one each time, and a role's credentials would not
 * keep a days-long URL alive). The bytes never pass through the API.
 */
export async function downloadExport(
  ctx: AppContext,
  input: { record_id: string; exp: number; sig: string },
): Promise<string> {
  const now = ctx.clock.now();
  await verifyDownloadLink(input.record_id, input.exp, input.sig, now);
  const record = await recordById(input.record_id);
  if (record?.kind !== 'export' || record.status !== 'succeeded' || !record.document_key)
    throw notFound(RECORD_NOT_FOUND);
  const left = input.exp - Math.floor(now.getTime() / 1000);
  return documentDownloadUrl(
    record.document_key,
    now,
    Math.max(1, Math.min(left, PRESIGNED_SECONDS)),
    `environment-${record.environment_id}.yaml`,
  );
}
