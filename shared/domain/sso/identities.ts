import { createHash } from 'node:crypto';
import { keys } from '#db/keys';
import { queryPartition } from '#db/query';
import { transact } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { deleteStep, deleteWhenStep } from '#db/steps';
import { linkEntity, type LinkItem } from './entities.ts';

export const IDENTITY_NOT_FOUND = 'Linked identity not found';

/** A linked identity's id in the API: a digest of (issuer, sub), so neither needs escaping in a path. */
export const identityId = (issuer: string, sub: string) =>
  createHash('sha256').update(`${issuer}\n${sub}`).digest('base64url').slice(0, 32);

const toOut = (l: LinkItem) => ({
  id: identityId(l.issuer, l.sub),
  issuer: l.issuer,
  sub: l.sub,
  email: l.email,
  linked_at: l.linked_at,
});

/** GET /auth/me/sso/identities: the caller's linked identities, oldest first. */
export async function listLinkedIdentities(ctx: AppContext) {
  const items = (await queryPartition(keys.account(actorAccount(ctx).id).PK, keys.ssoLinkPrefix)).map(
    linkEntity.decode,
  );
  return items.sort((a, b) => a.linked_at.localeCompare(b.linked_at)).map(toOut);
}

/** DELETE /auth/me/sso/identities/{id}: the identity and its mirror, together, only while the identity is the caller's. */
export async function unlinkIdentity(ctx: AppContext, input: { identity_id: string }): Promise<void> {
  const userId = actorAccount(ctx).id;
  const items = (await queryPartition(keys.account(userId).PK, keys.ssoLinkPrefix)).map(linkEntity.decode);
  const link = items.find((l) => identityId(l.issuer, l.sub) === input.identity_id);
  if (!link) throw notFound(IDENTITY_NOT_FOUND);
  await transact([
    deleteWhenStep(keys.ssoIdentity(link.issuer, link.sub), { user_id: userId }, notFound(IDENTITY_NOT_FOUND)),
    deleteStep(keys.ssoLink(userId, link.issuer, link.sub)),
  ]);
}
