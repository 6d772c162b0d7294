import { describe, expect, it } from 'vitest';
import { capabilities, PERMISSIONS } from '#auth/permissions';
import { isStaff } from '#shared/actor';
import { grantOf, parseGrant } from '#domain/tenancy';

describe('custom-role grants (tenancy/access)', () => {
  it('reads back what grantOf writes: the role, and the environment or null for project-wide', () => {
    expect(parseGrant(grantOf('role-1', 'env-1'))).toEqual({ roleId: 'role-1', envId: 'env-1' });
    expect(parseGrant(grantOf('role-1', null))).toEqual({ roleId: 'role-1', envId: null });
    expect(grantOf('role-1', null)).toBe('role-1#*');
  });
});

describe('environment document rights (auth/permissions)', () => {
  const facts = (f: Partial<Parameters<typeof capabilities>[0]>) =>
    capabilities({ isOwner: false, isMember: true, ...f });

  it('lets the owner and any environment role export; importing also needs services.manage there', () => {
    expect([...facts({ isOwner: true })]).toEqual(expect.arrayContaining(['env.export', 'env.import']));
    expect([...facts({ envRole: 'viewer' })]).toContain('env.export');
    expect([...facts({ envRole: 'viewer' })]).not.toContain('env.import');
    expect([...facts({ envRole: 'viewer', customGrants: ['services.manage'] })]).toContain('env.import');
    expect([...facts({ envRole: 'manager' })]).toEqual(expect.arrayContaining(['env.export', 'env.import']));
  });

  it('gives a member without an environment role neither, whatever custom roles grant', () => {
    const member = facts({ customGrants: ['services.manage', 'env.export', 'env.import'] });
    expect(member.has('env.export')).toBe(false);
    expect(member.has('env.import')).toBe(false);
  });

  it('keeps them out of the catalogue that custom roles grant from', () => {
    expect(PERMISSIONS as readonly string[]).not.toContain('env.export');
    expect(PERMISSIONS as readonly string[]).not.toContain('env.import');
  });
});

describe('the staff test (shared/actor)', () => {
  it('holds for staff and superusers only', () => {
    expect(isStaff({ is_staff: true, is_superuser: false })).toBe(true);
    expect(isStaff({ is_staff: false, is_superuser: true })).toBe(true);
    expect(isStaff({ is_staff: false, is_superuser: false })).toBe(false);
    expect(isStaff({})).toBe(false);
  });
});
