import { ProjectAccess, type CustomRoleDef, type Project } from '#domain/tenancy';
import type { EnvRole } from '#auth/permissions';

/** Unit tests' caller access, built from what loadAccess would read: membership, roles per environment, custom role definitions. */
export function accessOf(
  opts: { owner?: boolean; envRoles?: Record<string, EnvRole>; grants?: string[]; roles?: CustomRoleDef[] } = {},
): ProjectAccess {
  const project = { id: 'p1', name: 'Shop', deleted_at: null } as Project;
  const membership = {
    project_id: 'p1',
    user_id: 'u1',
    role: opts.owner ? ('owner' as const) : ('member' as const),
    created_at: '2026-01-01T00:00:00.000Z',
    custom_role_grants: new Set(opts.grants ?? []),
  };
  return new ProjectAccess(
    project,
    membership,
    new Map(Object.entries(opts.envRoles ?? {})),
    new Map((opts.roles ?? []).map((r) => [r.id, r])),
    new Map(),
  );
}

/** A custom role's definition (`deleted`: soft-deleted). */
export const customRole = (id: string, permissions: string[], deleted = false): CustomRoleDef => ({
  id,
  permissions,
  deleted_at: deleted ? '2026-01-02T00:00:00.000Z' : null,
});
