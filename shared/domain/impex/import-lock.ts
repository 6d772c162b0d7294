import { keys } from '#db/keys';
import { releaseLease, renewLease, takeLease, type Lease } from '#db/lease';
import { DomainError } from '#shared/errors';
import { errorFields, log } from '#shared/log';
import { getAccount } from '#domain/identity';

/**
 * One import writes into an environment at a time: the import takes the environment's
 * lock when it is started (a second one is refused with 409, naming the holder and its job) and its
 * job holds it for its whole run, renewing the lease; a job that dies holds it no longer than a lease.
 */
export const IMPORT_LEASE_MS = 2 * 60_000;
/** How often a running import renews its lease (well within it). */
const RENEW_MS = IMPORT_LEASE_MS / 4;

export const importLocked = (held: Lease) =>
  new DomainError(
    'conflict',
    `Another import into this environment is running (started by ${held.holder} since ${held.since}, job ${held.owner}): wait for it to finish (infracat jobs watch ${held.owner}) and try again`,
    { lock: { holder: held.holder, job_id: held.owner, since: held.since } },
  );

/** Takes the environment's import lock for job `jobId` of account `accountId` (named by its email), or refuses (409) with who holds it. */
export async function takeImportLock(
  projectId: string,
  envId: string,
  accountId: string,
  jobId: string,
  now: Date,
): Promise<void> {
  const holder = (await getAccount(accountId))?.email ?? accountId;
  const out = await takeLease(keys.importLock(projectId, envId), { holder, owner: jobId }, now, IMPORT_LEASE_MS);
  if (!out.ok) throw importLocked(out.held);
}

export const releaseImportLock = (projectId: string, envId: string, jobId: string) =>
  releaseLease(keys.importLock(projectId, envId), jobId);

/** Runs `work` holding the lock of job `jobId` (taken already), renewing its lease meanwhile; lets it go at the end. */
export async function whileLocked<T>(
  projectId: string,
  envId: string,
  jobId: string,
  now: () => Date,
  work: () => Promise<T>,
): Promise<T> {
  const key = keys.importLock(projectId, envId);
  const timer = setInterval(() => {
    renewLease(key, jobId, now(), IMPORT_LEASE_MS).catch((err) =>
      log.error('import lock not renewed', { job_id: jobId, ...errorFields(err) }),
    );
  }, RENEW_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await releaseLease(key, jobId).catch((err) =>
      log.error('import lock not released', { job_id: jobId, ...errorFields(err) }),
    );
  }
}
