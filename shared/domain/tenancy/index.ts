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
} from './access';
export { costEstimate } from './cost-estimate';
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
} from './custom-roles';
export { toEnvRoleOut, assignEnvRole, listEnvRoles, removeEnvRole, envRoleStep } from './env-roles';
export { ENV_NOT_IN_PROJECT, accessInEnvironment, accessAcrossEnvironments, envLiveCheck } from './env-scope';
export { environmentEntity, environmentView, type Environment, type EnvironmentOut } from './environment-entity';
export {
  ENVIRONMENT_NOT_FOUND,
  environmentsOf,
  listEnvironments,
  environmentStats,
  createEnvironment,
  renameEnvironment,
  deleteEnvironment,
} from './environments';
export { toGroupOut, toSubgroupOut, groupDescription } from './group-rules';
export { listGroups, newGroupSteps, createGroup, updateGroup, deleteGroup, type Group, type Subgroup } from './groups';
export { newSubgroupSteps, listSubgroups, createSubgroup, updateSubgroup, deleteSubgroup } from './subgroups';
export { acceptInvitationById, acceptInvitationByToken } from './invitation-acceptance';
export { createInvitation, listInvitations, resendInvitation, revokeInvitation } from './invitations';
export { toInviteOut } from './invitation-state';
export { pendingInvitationGate } from './invitation-links';
export { accessToItem, type LookupRefs, type Located, type ItemRequest } from './item-access';
export { removeMember } from './members';
export { projectUserEntity, projectUserView, type ProjectUserOut } from './project-user-entity';
export {
  PROJECT_USER_NOT_FOUND,
  listProjectUsers,
  getProjectUser,
  createProjectUser,
  updateProjectUser,
  deleteProjectUser,
} from './project-users';
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
} from './projects';
export type { Project } from './project-types';
export type { PeopleReferences } from './people-references';
export { projectEntity } from './project-entity';
export { groupEntity, subgroupEntity } from './group-entity';
