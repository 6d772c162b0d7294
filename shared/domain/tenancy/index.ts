/** The tenancy context's public face: other contexts, routes and workers import only this. */
export {
  grantOf,
  parseGrant,
  ProjectAccess,
  PROJECT_NOT_FOUND,
  unreachableProjects,
  accessToProject,
  callerCapabilities,
  type CustomRoleDef,
} from './access.ts';
export { costEstimate } from './cost-estimate.ts';
export {
  toCustomRoleOut,
  toAssignmentOut,
  listCustomRoles,
  createCustomRole,
  updateCustomRole,
  deleteCustomRole,
  listAssignments,
  assignCustomRole,
  removeAssignment,
} from './custom-roles.ts';
export { toEnvRoleOut, assignEnvRole, listEnvRoles, removeEnvRole, envRoleStep } from './env-roles.ts';
export { ENV_NOT_IN_PROJECT, accessInEnvironment, accessAcrossEnvironments, envLiveCheck } from './env-scope.ts';
export { environmentEntity, environmentView, type Environment, type EnvironmentOut } from './environment-entity.ts';
export {
  ENVIRONMENT_NOT_FOUND,
  environmentsOf,
  listEnvironments,
  environmentStats,
  createEnvironment,
  renameEnvironment,
  deleteEnvironment,
} from './environments.ts';
export { toGroupOut, toSubgroupOut, groupDescription } from './group-rules.ts';
export {
  listGroups,
  newGroupSteps,
  createGroup,
  updateGroup,
  deleteGroup,
  type Group,
  type Subgroup,
} from './groups.ts';
export { newSubgroupSteps, listSubgroups, createSubgroup, updateSubgroup, deleteSubgroup } from './subgroups.ts';
export { acceptInvitationById, acceptInvitationByToken } from './invitation-acceptance.ts';
export { createInvitation, listInvitations, resendInvitation, revokeInvitation } from './invitations.ts';
export { toInviteOut } from './invitation-state.ts';
export { pendingInvitationGate } from './invitation-links.ts';
export { accessToItem, type LookupRefs, type Located, type ItemRequest } from './item-access.ts';
export { removeMember } from './members.ts';
export { projectUserEntity, projectUserView, type ProjectUserOut } from './project-user-entity.ts';
export {
  PROJECT_USER_NOT_FOUND,
  listProjectUsers,
  getProjectUser,
  createProjectUser,
  updateProjectUser,
  deleteProjectUser,
} from './project-users.ts';
export {
  retentionOfProject,
  toProjectOut,
  planOfProject,
  createProject,
  membershipSteps,
  listProjects,
  serviceQuotaAddon,
  ownedProjectIds,
  liveProjects,
  projectStats,
  updateProjectSettings,
  projectPlan,
  deleteProject,
  projectMembers,
} from './projects.ts';
export type { Project } from './project-types.ts';
export type { PeopleReferences } from './people-references.ts';
export { projectEntity } from './project-entity.ts';
export { groupEntity, subgroupEntity } from './group-entity.ts';
