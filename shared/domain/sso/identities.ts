import { createHash } from 'node:crypto';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { transact } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';

export const IDENTITY_NOT_FOUND = 'Linked identity not found';

interface LinkItem {
  issuer: string;
  sub: string;
  user_id: string;
  email: string;
  project_id: string;
  linked_at: string;
}

/** A linked identity's id in the API: a digest of (issuer, sub), so neither needs escaping in a path. */
export const identityId = (issuer: string, sub: string) => createHash('sha256').update(`${issuer}\n${sub}`).digest('base64url').slice(0, 32);

const toOut = (l: LinkItem) => ({ id: identityId(l.issuer, l.sub), issuer: l.issuer, sub: l.sub, email: l.email, linked_at: l.linked_at });

/** GET /auth/me/sso/identities: the caller's linked identities, oldest first. */
export async function listLinkedIdentities(ctx: AppContext) {
  const items = (await queryPartition(keys.account(actorAccount(ctx).id).PK, keys.ssoLinkPrefix)) as unknown as LinkItem[];
  return items.sort((a, b) => a.linked_at.localeCompare(b.linked_at)).map(toOut);
}

/** DELETE /auth/me/sso/identities/{id}: the identity and its mirror, together, only while the identity is the caller's. */
export async function unlinkIdentity(ctx: AppContext, input: { identity_id: string }): Promise<void> {
  const userId = actorAccount(ctx).id;
  const items = (await queryPartition(keys.account(userId).PK, keys.ssoLinkPrefix)) as unknown as LinkItem[];
  const link = items.find((l) => identityId(l.issuer, l.sub) === input.identity_id);
  if (!link) throw notFound(IDENTITY_NOT_FOUND);
  await transact([
    { Delete: { Key: keys.ssoIdentity(link.issuer, link.sub), ConditionExpression: 'user_id = :u', ExpressionAttributeValues: { ':u': userId } }, failWith: notFound(IDENTITY_NOT_FOUND) },
    { Delete: { Key: keys.ssoLink(userId, link.issuer, link.sub) } },
  ]);
}
