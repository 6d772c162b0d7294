import { refsAsRead } from '#db/refs';
import { conditionParams, isLive } from '#db/live';
import { keys } from '#db/keys';
import { keyId } from '#db/batch-get';
import { queryPrefix } from '#db/query';
import { deleteStep, existingSetStep } from '#db/steps';
import { CASCADE_STALE, concurrentChange, transactWithCascade, type TransactStep } from '#db/transact';
import { onContention } from '#db/retry';
import { changeAudit } from '#shared/audit';
import { invalid, notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { accountEntity } from '#shared/account-entity';
import { loadAccess } from './access.ts';
import { membershipEntity } from './membership-entity.ts';
import { envRoleEntity } from './env-role-entity.ts';
import { customRoleAssignmentEntity } from './custom-role-entity.ts';
import { retentionOfProject } from './projects.ts';
import type { PeopleReferences } from './people-references.ts';

export const MEMBER_NOT_FOUND = 'Member not found';
/** The membership changed between the removal's read and its write: read again. */
const CHANGED = concurrentChange();
/**
 * The owner whose plan the project runs on (its `owner_id`: their plan's limits govern it, their
 * project slot holds it) stays a member: so a project never loses its last owner, nor its plan.
 */
export const PLAN_OWNER_STAYS =
  'The owner whose plan this project uses cannot leave it or be removed. Delete the project instead.';

/**
 * DELETE /projects/{id}/members/{user_id}: ends a membership. An owner removes anyone; any member
 * removes themselves (leaves). Refusals in SPEC's order: the project's 404 for a non-member, 403
 * 'Project owner required' for a member removing someone else, 404 'Member not found', 400 for the
 * project's plan owner. In one transaction (when it fits DynamoDB's 100 items; a larger cascade
 * goes first, the membership last): the membership and its user-side mirror (its custom-role grants
 * go with it), the user's environment roles in the project (deleted) and custom-role assignments
 * (withdrawn, like DELETE of an assignment), the services naming them as responsible cleared
 * (`references`, composed by the catalog: `removeMemberAndReferences`), and the audit entry, whose
 * summary lists those services (`responsible_cleared_service_ids`). Access ends at once: every
 * request reads the membership. What the user created (services, servers, …) stays the project's.
 */
export async function removeMember(
  ctx: AppContext,
  input: { project_id: string; user_id: string },
  references?: PeopleReferences,
): Promise<void> {
  const callerId = actorAccount(ctx).id;
  const { project_id: projectId, user_id: userId } = input;
  const memberKey = keys.member(projectId, userId);
  // A role given to the member while this removal read their roles moves the member's
  // `refs_version` (`memberHoldsStep`, custom-role grants; db/refs.ts): the removal then reads
  // again, so no role outlives the membership.
  await onContention(
    async () => {
      const access = await loadAccess(projectId, callerId, { extra: [memberKey, keys.account(userId)] });
      const leaving = userId === callerId;
      if (!leaving) access.requireOwnerRight('members.remove');
      const member = membershipEntity.decodeFound(access.extra.get(keyId(memberKey)));
      if (!member) throw notFound(MEMBER_NOT_FOUND);
      if (userId === access.project.owner_id) throw invalid(PLAN_OWNER_STAYS);

      const [envRoles, assignments, retention, named] = await Promise.all([
        queryPrefix(projectId, keys.envRolesPrefix).then((items) => items.map(envRoleEntity.decode)),
        queryPrefix(projectId, keys.customRoleAssignmentsPrefix).then((items) =>
          items.map(customRoleAssignmentEntity.decode),
        ),
        retentionOfProject(access.project),
        references ? references(ctx, projectId, userId) : { steps: [], serviceIds: [] },
      ]);
      const roles = envRoles.filter((r) => r.user_id === userId);
      const held = assignments.filter((a) => a.user_id === userId && isLive(a));
      const now = ctx.clock.now().toISOString();
      const email = accountEntity.decodeFound(access.extra.get(keyId(keys.account(userId))))?.email ?? null;
      const audit = changeAudit(
        ctx,
        'member',
        'remove',
        { id: userId, project_id: projectId },
        {
          before: { user_id: userId, email, role: member.role },
          after: null,
        },
        retention,
        {
          summary: {
            left: leaving,
            env_roles_removed: roles.length,
            custom_roles_withdrawn: held.length,
            responsible_cleared_service_ids: named.serviceIds,
          },
        },
      );
      const cascade: TransactStep[] = [
        ...roles.map((r) => deleteStep(keys.envRole(projectId, r.environment_id, userId))),
        ...held.map((a) =>
          existingSetStep(keys.customRoleAssignment(projectId, a.role_id, userId), {
            deleted_at: now,
            updated_at: now,
          }),
        ),
        // The services naming them as responsible, cleared (a service given them meanwhile moves the member's refs_version: read again).
        ...named.steps,
      ];
      await transactWithCascade(cascade, [
        // Only the membership as read: gone meanwhile (of two concurrent removals, the second) or given a role meanwhile, read again.
        { Delete: { Key: memberKey, ...conditionParams(refsAsRead(member)) }, failWith: CHANGED },
        deleteStep(keys.membership(userId, projectId)),
        ...audit.steps,
      ]);
    },
    (err) => err === CHANGED || err === CASCADE_STALE,
  );
}
