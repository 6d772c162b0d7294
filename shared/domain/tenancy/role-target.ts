import { keys } from '#db/keys';
import { keyId, type Key } from '#db/batch-get';
import { referenceStep } from '#db/refs';
import type { TransactStep } from '#db/transact';
import { creationAudit } from '#shared/audit';
import { notFound, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { mailStep } from '#mail/send';
import { oneLine } from '#mail/html';
import type { Account } from '#domain/identity';
import type { Membership, ProjectAccess } from './access.ts';
import { membershipSteps } from './projects.ts';
import type { Project } from './project-types.ts';
import { addedToProjectMail, projectLink } from './member-mail.ts';
import { accountEntity } from '#shared/account-entity';
import { membershipEntity } from './membership-entity.ts';

/** The refusal of a role's target that is no account, or (to anyone but an owner) no member of the project. */
export const USER_NOT_FOUND = 'User not found';

/** A member item, with the version that every change of what the member holds moves on (db/refs.ts). */
export type MemberItem = Membership;

/** What giving someone a role reads about them; read with the caller's access (`extra`), one BatchGet. */
export const roleTargetKeys = (projectId: string, userId: string): Key[] => [
  keys.account(userId),
  keys.member(projectId, userId),
];

export interface RoleTarget {
  account: Account;
  /** Their membership; absent when the (owner's) assignment is to make them a member. */
  member: MemberItem | undefined;
}

/**
 * Who may be given a role in a project (environment roles, custom roles): a member. An
 * owner may also give one to any account, and the assignment makes it a member (SPEC: "when the
 * project owner assigns a role, the target also gets a project membership record"). To anyone
 * else, an account that is not a member is what an unknown id is: 404 'User not found', the same
 * body, and nothing written, so a non-owner can neither leave a role that grants nothing nor learn
 * which ids are accounts. `items` holds what `roleTargetKeys` read.
 */
export function roleTarget(
  access: ProjectAccess,
  items: Map<string, Record<string, unknown>>,
  userId: string,
): RoleTarget {
  const account = accountEntity.decodeFound(items.get(keyId(keys.account(userId))));
  const member = membershipEntity.decodeFound(items.get(keyId(keys.member(access.project.id, userId))));
  if (!account || (!member && !access.can('members.admit'))) throw notFound(USER_NOT_FOUND);
  return { account, member };
}

/**
 * The guard of a role written for a member: the membership must still be there when the role is
 * written (`failWith` otherwise: a removal committed meanwhile), and a role is a reference to it
 * (db/refs.ts), so a removal that read the member's roles before this write starts again instead
 * of leaving the role behind (`removeMember`).
 */
export const memberHoldsStep = (projectId: string, userId: string, failWith: DomainError): TransactStep =>
  referenceStep(keys.member(projectId, userId), failWith);

/**
 * An owner's assignment to a non-member makes them one: the membership (and its mirror), the
 * project's audit entry `member.create` (by the owner; `via` names the assignment) and the mail that
 * tells them (who added them, with what: `told`, and the project's address), in the assignment's
 * transaction (the outbox: a mail-queue outage delays the mail, never loses it). `failWith` replaces
 * the membership's own refusal (one written meanwhile).
 */
export function joinSteps(
  ctx: AppContext,
  project: Project,
  account: Account,
  via: 'env_role' | 'custom_role_assignment',
  told: string,
  now: string,
  failWith?: DomainError,
): TransactStep[] {
  const steps = membershipSteps(project.id, account.id, 'member', now).map((s) =>
    failWith && s.failWith ? { ...s, failWith } : s,
  );
  const owner = actorAccount(ctx);
  return [
    ...steps,
    ...creationAudit(
      ctx,
      'member',
      { id: account.id, project_id: project.id },
      { user_id: account.id, email: account.email, role: 'member' },
      { summary: { via } },
    ),
    mailStep(
      addedToProjectMail({
        to: account.email,
        owner: oneLine(owner.name ?? '') || owner.email,
        projectName: project.name,
        grant: told,
        link: projectLink(project.id, ctx),
      }),
      ctx,
    ),
  ];
}
