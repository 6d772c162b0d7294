import { isLive } from '#db/live';
import { batchGet, keyId, type Key } from '#db/batch-get';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { forbidden, isRefusal, notFound, type DomainError } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import {
  capabilities,
  isPermission,
  type CataloguePermission,
  type EnvRole,
  type OwnerRight,
  type Permission,
} from '#auth/permissions';
import { projectEntity, type Project } from './project-entity.ts';
import { membershipEntity, type Membership } from './membership-entity.ts';
import { envRoleEntity } from './env-role-entity.ts';
import { customRoleEntity } from './custom-role-entity.ts';
import { keyAllowsProject } from '#auth/key-grant';
import { passwordSessionOn, recordBreakGlass, SSO_REQUIRED } from './sso-required.ts';
import { currentScope } from '#shared/invocation';

export type { Membership } from './membership-entity.ts';

/** Whether a membership (a member item, or its mirror under the user) is an owner's. */
export const isOwnerMembership = (m: Pick<Membership, 'role'> | undefined): boolean => m?.role === 'owner';

/** A custom-role grant as mirrored on the member item: `<roleId>#<environmentId or *>`. */
export const grantOf = (roleId: string, envId: string | null) => `${roleId}#${envId ?? '*'}`;

/** A grant string read back: its role, and its environment (null: project-wide). The one reader of the format. */
export function parseGrant(grant: string): { roleId: string; envId: string | null } {
  const [roleId, scope] = grant.split('#');
  return { roleId, envId: scope === '*' || scope === undefined ? null : scope };
}

export interface CustomRoleDef {
  id: string;
  permissions: string[];
  deleted_at: string | null;
}

/** What the caller is in one project (and optionally one environment), read in one round trip. */
export class ProjectAccess {
  readonly project: Project;
  readonly membership: Membership;
  readonly envRoles: Map<string, EnvRole>;
  private readonly roleDefs: Map<string, CustomRoleDef>;
  /** Items fetched alongside, by `keyId`. */
  readonly extra: Map<string, Record<string, unknown>>;

  constructor(
    project: Project,
    membership: Membership,
    envRoles: Map<string, EnvRole>,
    roleDefs: Map<string, CustomRoleDef>,
    extra: Map<string, Record<string, unknown>>,
  ) {
    this.project = project;
    this.membership = membership;
    this.envRoles = envRoles;
    this.roleDefs = roleDefs;
    this.extra = extra;
  }

  get userId() {
    return this.membership.user_id;
  }
  get isOwner() {
    return isOwnerMembership(this.membership);
  }

  /** Effective permission keys, project-wide or inside one environment. */
  capabilities(envId?: string): Set<Permission> {
    const customGrants: string[] = [];
    for (const grant of this.membership.custom_role_grants ?? []) {
      const { roleId, envId: scope } = parseGrant(grant);
      const def = this.roleDefs.get(roleId);
      if (def && isLive(def) && (scope === null || scope === envId)) customGrants.push(...def.permissions);
    }
    return capabilities({
      isOwner: this.isOwner,
      isMember: true,
      envRole: envId ? this.envRoles.get(envId) : null,
      customGrants,
    });
  }

  can(permission: Permission, envId?: string): boolean {
    return this.capabilities(envId).has(permission);
  }

  /** Refuses with 403 `detail` unless the caller holds `permission` (here or in `envId`). */
  require(permission: Permission, detail: string, envId?: string): void {
    if (!this.can(permission, envId)) throw forbidden(detail);
  }

  /** The environments in which a custom role of the caller's, granted there (not project-wide), gives `permission`. */
  envsGranting(permission: Permission): Set<string> {
    const envs = new Set<string>();
    for (const grant of this.membership.custom_role_grants ?? []) {
      const { envId } = parseGrant(grant);
      if (envId && this.can(permission, envId)) envs.add(envId);
    }
    return envs;
  }

  /**
   * The one check of an owner's action, refused with 403 'Project owner required' (SPEC's owner-only
   * detail): `project.manage` (settings, custom roles and their assignments) is the owner's or a
   * custom role's that grants it; an `OwnerRight` (deleting the project, invitations, removing
   * someone else) is the owner membership's alone. Which is which: `OWNER_RIGHTS` in auth/permissions.
   */
  requireOwnerRight(right: 'project.manage' | OwnerRight): void {
    this.require(right, OWNER_REQUIRED);
  }
}

export const PROJECT_NOT_FOUND = 'Project not found';
/** The refusal of an owner's action (`requireOwnerRight`). */
export const OWNER_REQUIRED = 'Project owner required';

/**
 * Loads the caller's access to a project: the project, their membership, their role in `envId`
 * and any `extra` items, in one BatchGet. A missing or deleted project and a project the caller is
 * not a member of give the same refusal (`notFoundError`), so 404 bodies are byte-identical.
 * `everyEnvRole`: their roles in every environment instead (a Query of the project's roles beside the
 * BatchGet), for a request across environments.
 */
export async function loadAccess(
  projectId: string,
  userId: string,
  opts: { envId?: string; everyEnvRole?: boolean; extra?: Key[]; notFoundError?: DomainError } = {},
): Promise<ProjectAccess> {
  const projectKey = keys.project(projectId);
  const memberKey = keys.member(projectId, userId);
  const roleKey = opts.envId ? keys.envRole(projectId, opts.envId, userId) : undefined;
  const [items, everyRole] = await Promise.all([
    batchGet([projectKey, memberKey, ...(roleKey ? [roleKey] : []), ...(opts.extra ?? [])]),
    opts.everyEnvRole ? queryPrefix(projectId, keys.envRolesPrefix) : [],
  ]);
  const project = projectEntity.decodeFound(items.get(keyId(projectKey)));
  const membership = membershipEntity.decodeFound(items.get(keyId(memberKey)));
  // A project outside an API key's projects is as unknown to its token as one the account is not in.
  if (!project || !isLive(project) || !membership || !keyAllowsProject(currentScope()?.key_projects, projectId))
    throw opts.notFoundError ?? notFound(PROJECT_NOT_FOUND);
  const passwordSession = project.sso_required ? passwordSessionOn(project) : undefined;
  if (passwordSession) {
    if (!isOwnerMembership(membership)) throw forbidden(SSO_REQUIRED);
    await recordBreakGlass(passwordSession, project);
  }
  const envRoles = new Map<string, EnvRole>();
  const role = roleKey ? envRoleEntity.decodeFound(items.get(keyId(roleKey))) : undefined;
  if (role && opts.envId) envRoles.set(opts.envId, role.role);
  for (const raw of everyRole) {
    const r = envRoleEntity.decode(raw);
    if (r.user_id === userId) envRoles.set(r.environment_id, r.role);
  }
  const roleDefs = new Map<string, CustomRoleDef>();
  const grants = [...(membership.custom_role_grants ?? [])];
  if (grants.length) {
    // Only callers holding custom roles pay a second round trip.
    const ids = [...new Set(grants.map((g) => parseGrant(g).roleId))];
    const defs = await batchGet(ids.map((id) => keys.customRole(projectId, id)));
    for (const raw of defs.values()) {
      const def = customRoleEntity.decode(raw);
      roleDefs.set(def.id, def);
    }
  }
  return new ProjectAccess(project, membership, envRoles, roleDefs, items);
}

/** Of `projectIds`, those `userId` cannot reach (unknown, deleted, or not a member), in the order given: one BatchGet. */
export async function unreachableProjects(userId: string, projectIds: readonly string[]): Promise<string[]> {
  if (!projectIds.length) return [];
  const items = await batchGet(projectIds.flatMap((id) => [keys.project(id), keys.member(id, userId)]));
  return projectIds.filter(
    (id) => !isLive(items.get(keyId(keys.project(id)))) || !items.get(keyId(keys.member(id, userId))),
  );
}

/**
 * The caller's access to a project as a whole, for a request that addresses no item by id (lists,
 * creations): `loadAccess` without items to check. An item addressed by id goes through
 * `accessToItem` (item-access.ts), which checks it; test/architecture/source-rules.ts keeps it so.
 */
export const accessToProject = (
  projectId: string,
  userId: string,
  opts: { envId?: string; notFoundError?: DomainError } = {},
) => loadAccess(projectId, userId, opts);

/**
 * GET /auth/me/capabilities: the caller's effective permission keys in a project (optionally one
 * environment), from the one permission function. A non-member (or an unknown project) is answered,
 * not refused: no capabilities.
 */
export async function callerCapabilities(ctx: AppContext, input: { project_id: string; environment_id?: string }) {
  const { project_id, environment_id } = input;
  try {
    const access = await accessToProject(project_id, actorAccount(ctx).id, { envId: environment_id });
    return {
      project_id,
      is_owner: access.isOwner,
      is_member: true,
      capabilities: [...access.capabilities(environment_id)].filter(isPermission).sort(),
    };
  } catch (err) {
    if (!isRefusal(err, 'not_found')) throw err;
    return { project_id, is_owner: false, is_member: false, capabilities: [] as CataloguePermission[] };
  }
}
