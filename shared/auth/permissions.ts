/**
 * The permission catalogue and the one function that decides what a caller may do.
 * Every check in the code, and GET /auth/me/capabilities, goes through `capabilities`.
 */
export const RESOURCE_KINDS = ['services', 'floors', 'networks', 'groups', 'connections'] as const;

export const PERMISSIONS = [
  'project.manage', // project settings, custom roles and their assignments: owners, or a custom role granting it (not what OWNER_RIGHTS name)
  'env.manage', // create, rename, delete environments
  'env.roles.manage', // assign and remove environment roles
  ...RESOURCE_KINDS.flatMap((k) => [`${k}.view`, `${k}.manage`] as const),
  'project_users.view',
  'project_users.manage',
  'webhooks.manage', // register, change, test and delete a project's webhooks, read their deliveries: owners, or a custom role granting it
  'audit.read', // read the project's audit log (GET /projects/{id}/audit-log): owners, or a custom role granting it
] as const;
/** A key of the catalogue: what custom roles grant and GET /auth/me/capabilities lists. */
export type CataloguePermission = (typeof PERMISSIONS)[number];

/**
 * Rights that follow from an environment role and are not in the catalogue (no custom role grants
 * them alone, no capabilities answer lists them): exporting an environment's document (owner or any
 * environment role there, SPEC), importing one (also able to manage services there: it writes them).
 */
export const ENV_DOCUMENT_RIGHTS = ['env.export', 'env.import'] as const;

/**
 * What the owner membership alone may do: SPEC marks these routes "owner" ("'owner' means the project
 * owner role"), or they hand someone the project. Not in the catalogue, so no custom role grants them,
 * not even one holding `project.manage`, and no capabilities answer lists them.
 */
export const OWNER_RIGHTS = [
  'project.delete', // DELETE /projects/{id}
  'invitations.manage', // create, list, resend and revoke invitations (/invites)
  'members.remove', // remove someone else from the project (leaving is every member's)
  'members.admit', // give a role to an account that is not a member, which makes it one
  'jobs.cancel', // cancel an import or export someone else started (its starter may too)
  'sso.manage', // configure the project's single sign-on (/projects/{id}/sso): it decides who signs in and how
] as const;
export type OwnerRight = (typeof OWNER_RIGHTS)[number];

export type Permission = CataloguePermission | (typeof ENV_DOCUMENT_RIGHTS)[number] | OwnerRight;

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

/** Whether a key is in the catalogue (what a custom role may grant, what the capabilities answer lists). */
export const isPermission = (p: string): p is CataloguePermission => (PERMISSIONS as readonly string[]).includes(p);

export function capabilities(f: AccessFacts): Set<Permission> {
  if (!f.isMember) return new Set();
  if (f.isOwner) return new Set<Permission>([...PERMISSIONS, ...ENV_DOCUMENT_RIGHTS, ...OWNER_RIGHTS]);
  const granted = new Set<Permission>(MEMBER_GRANTS);
  for (const p of f.envRole ? ROLE_GRANTS[f.envRole] : []) granted.add(p);
  for (const p of f.customGrants ?? []) if (isPermission(p)) granted.add(p);
  if (f.envRole) {
    granted.add('env.export');
    if (granted.has('services.manage')) granted.add('env.import');
  }
  return granted;
}
