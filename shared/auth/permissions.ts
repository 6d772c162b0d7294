/**
 * The permission catalogue and the one function that decides what a caller may do.
 * Every check in the code, and GET /auth/me/capabilities, goes through `capabilities`.
 */
export const RESOURCE_KINDS = ['services', 'floors', 'networks', 'groups', 'connections'] as const;

export const PERMISSIONS = [
  'project.manage', // settings, deletion, invitations, custom roles: owners only unless granted
  'env.manage', // create, rename, delete environments
  'env.roles.manage', // assign and remove environment roles
  ...RESOURCE_KINDS.flatMap((k) => [`${k}.view`, `${k}.manage`] as const),
  'project_users.view',
  'project_users.manage',
  'webhooks.manage', // register, change, test and delete a project's webhooks, read their deliveries: owners, or a custom role granting it
  'audit.read', // read the project's audit log (GET /projects/{id}/audit-log): owners, or a custom role granting it
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ENV_ROLES = ['administrator', 'manager', 'viewer'] as const;
export type EnvRole = (typeof ENV_ROLES)[number];

const VIEW = RESOURCE_KINDS.map((k) => `${k}.view` as Permission);
const MANAGE = RESOURCE_KINDS.map((k) => `${k}.manage` as Permission);

/** What an environment role grants inside its environment. */
const ROLE_GRANTS: Record<EnvRole, Permission[]> = {
  administrator: [...VIEW, ...MANAGE, 'env.roles.manage'],
  manager: [...VIEW, ...MANAGE],
  viewer: VIEW,
};

/** A member without a role reads every environment of the project. */
const MEMBER_GRANTS: Permission[] = [...VIEW, 'project_users.view'];

export interface AccessFacts {
  isOwner: boolean;
  isMember: boolean;
  /** The caller's role in the environment in question, if any. */
  envRole?: EnvRole | null;
  /** Permission keys granted by custom roles that apply here (project-wide or to this environment). */
  customGrants?: Iterable<string>;
}

export const isPermission = (p: string): p is Permission => (PERMISSIONS as readonly string[]).includes(p);

export function capabilities(f: AccessFacts): Set<Permission> {
  if (!f.isMember) return new Set();
  if (f.isOwner) return new Set(PERMISSIONS);
  const granted = new Set<Permission>(MEMBER_GRANTS);
  for (const p of f.envRole ? ROLE_GRANTS[f.envRole] : []) granted.add(p);
  for (const p of f.customGrants ?? []) if (isPermission(p)) granted.add(p);
  return granted;
}
