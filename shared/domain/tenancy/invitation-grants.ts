/** What accepting an invitation reads (one BatchGet) and what it grants from that: the membership, a role in the named environment. */
import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import type { Account } from '#domain/identity';
import { isOwnerMembership, type Membership } from './access.ts';
import { envRoleStep, type EnvRoleAssignment } from './env-roles.ts';
import { memberHoldsStep } from './role-target.ts';
import { environmentEntity, type Environment } from './environment-entity.ts';
import { membershipSteps } from './projects.ts';
import type { Project } from './project-types.ts';
import {
  DEFAULT_INVITE_ROLE,
  INVITATION_NOT_FOUND,
  INVITATION_CHANGED as STALE,
  type Invitation,
} from './invitation-state.ts';
import { batchGet, keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { accountEntity } from '#shared/account-entity';
import { projectEntity } from './project-entity.ts';
import { membershipEntity } from './membership-entity.ts';
import { envRoleEntity } from './env-role-entity.ts';

export interface Facts {
  project: Project;
  account?: Account;
  membership?: Membership;
  env?: Environment;
  envRole?: EnvRoleAssignment;
}

/** What acceptance needs to know, in one BatchGet. A deleted project's invitation is not found. */
export async function acceptanceFacts(invite: Invitation, userId: string | undefined): Promise<Facts> {
  const p = invite.project_id;
  const envId = invite.environment_id;
  const k = {
    project: keys.project(p),
    env: envId ? keys.environment(p, envId) : undefined,
    account: userId ? keys.account(userId) : undefined,
    membership: userId ? keys.member(p, userId) : undefined,
    envRole: userId && envId ? keys.envRole(p, envId, userId) : undefined,
  };
  const items = await batchGet(Object.values(k).filter((x): x is { PK: string; SK: string } => Boolean(x)));
  const get = (key?: { PK: string; SK: string }) => (key ? items.get(keyId(key)) : undefined);
  const project = projectEntity.decodeFound(get(k.project));
  if (!project || !isLive(project)) throw notFound(INVITATION_NOT_FOUND);
  return {
    project,
    account: accountEntity.decodeFound(get(k.account)),
    membership: membershipEntity.decodeFound(get(k.membership)),
    env: environmentEntity.decodeFound(get(k.env)),
    envRole: envRoleEntity.decodeFound(get(k.envRole)),
  };
}

/**
 * What the invitation grants: the membership (unless the account already is a member) and, when it
 * names a live environment, a role there (default viewer) carrying the invitation's group/subgroup
 * scope. Owners already hold everything, so they get no role.
 */
export function grantSteps(invite: Invitation, userId: string, facts: Facts, ctx: AppContext): TransactStep[] {
  const steps: TransactStep[] = [];
  const now = ctx.clock.now().toISOString();
  if (!facts.membership)
    steps.push(...membershipSteps(invite.project_id, userId, 'member', now).map((s) => ({ ...s, failWith: STALE })));
  if (invite.environment_id && isLive(facts.env) && !isOwnerMembership(facts.membership)) {
    const step = envRoleStep(
      invite.project_id,
      invite.environment_id,
      userId,
      invite.role ?? DEFAULT_INVITE_ROLE,
      facts.envRole?.id ?? ctx.ids.newId(),
    );
    step.Put!.Item = {
      ...step.Put!.Item,
      group_id: invite.group_id,
      subgroup_id: invite.subgroup_id,
      invitation_id: invite.id,
    };
    steps.push(step);
    // A member's role is written only while they still are one (a removal committed meanwhile: evaluated again).
    if (facts.membership) steps.push(memberHoldsStep(invite.project_id, userId, STALE));
  }
  return steps;
}
