import type { TransactStep } from '#db/transact';
import type { AppContext } from '#shared/context';

/**
 * What names a person who leaves the project's people (a member removed or leaving, a project user
 * deleted), cleared in the same change: the steps, and the ids of the services they clear (for the
 * audit entry). The catalog provides it (services name their responsible people); tenancy's removal
 * runs it with its own reads, again on each re-run.
 */
export type PeopleReferences = (
  ctx: AppContext,
  projectId: string,
  personId: string,
) => Promise<{ steps: TransactStep[]; serviceIds: string[] }>;
