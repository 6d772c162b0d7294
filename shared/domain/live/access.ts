import { stillAuthenticated } from '#auth/authenticate';
import type { AppContext } from '#shared/context';
import { DomainError } from '#shared/errors';
import type { LiveBinding } from '#shared/progress';
import { accessToProject } from '#domain/tenancy';

/** A live connection as stored: whose, which environment, with what credential, and from which `seq` it is live. */
export interface LiveConnection extends LiveBinding {
  connection_id: string;
  user_id: string;
  from_seq?: number;
}

/**
 * Whether a connection's account may still read its environment, judged now (docs/decisions/0986):
 * the credential it connected with still authenticates (session not revoked nor expired, API key not
 * revoked, account active at the same token version) and the account still holds a role that lets it
 * read the environment's services (the permission GET /services asks). Strongly consistent reads, so a
 * removal answered before this check is seen by it. `memo` shares one verdict per account and
 * credential within one fan-out.
 */
export function accessJudge(ctx: AppContext) {
  const memo = new Map<string, Promise<boolean>>();
  return (c: LiveConnection): Promise<boolean> => {
    const id = `${c.user_id}#${c.session_id ?? ''}#${c.key_id ?? ''}#${c.project_id}#${c.environment_id}`;
    let verdict = memo.get(id);
    if (!verdict) {
      verdict = judge(c, ctx);
      memo.set(id, verdict);
    }
    return verdict;
  };
}

async function judge(c: LiveConnection, ctx: AppContext): Promise<boolean> {
  const [authenticated, readable] = await Promise.all([
    stillAuthenticated(c.user_id, c, ctx),
    accessToProject(c.project_id, c.user_id, { envId: c.environment_id }).then(
      (access) => access.can('services.view', c.environment_id),
      (err) => {
        if (err instanceof DomainError) return false; // not found, not a member: no access
        throw err;
      },
    ),
  ]);
  return authenticated && readable;
}
