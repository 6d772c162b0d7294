import { describe, expect, it } from 'vitest';
import { OWNER_RIGHTS } from '#auth/permissions';
import { accessOf, customRole } from '../helpers/access.ts';

describe('ProjectAccess (tenancy/access): custom roles and environment roles where they apply', () => {
  const ops = customRole('ops', ['services.manage', 'webhooks.manage']);

  it.each<[string, Parameters<typeof accessOf>[0], string | undefined, boolean]>([
    // name, access, environment asked about, may manage services there
    ['a grant scoped to env A applies in env A', { grants: ['ops#envA'], roles: [ops] }, 'envA', true],
    ['a grant scoped to env A does not apply in env B', { grants: ['ops#envA'], roles: [ops] }, 'envB', false],
    ['a grant scoped to env A does not apply project-wide', { grants: ['ops#envA'], roles: [ops] }, undefined, false],
    ['a project-wide grant (*) applies in every environment', { grants: ['ops#*'], roles: [ops] }, 'envB', true],
    ['a project-wide grant applies project-wide', { grants: ['ops#*'], roles: [ops] }, undefined, true],
    [
      'a deleted role grants nothing',
      { grants: ['ops#*'], roles: [customRole('ops', ['services.manage'], true)] },
      'envA',
      false,
    ],
    ['a grant of a role whose definition is gone grants nothing', { grants: ['ops#*'], roles: [] }, 'envA', false],
    ['a manager role in env A applies there', { envRoles: { envA: 'manager' } }, 'envA', true],
    ['a manager role in env A does not apply in env B', { envRoles: { envA: 'manager' } }, 'envB', false],
    ['an owner manages everywhere', { owner: true }, 'envB', true],
  ])('%s', (_name, opts, envId, may) => {
    expect(accessOf(opts).can('services.manage', envId)).toBe(may);
  });

  it('require refuses with the caller-given detail; requireOwnerRight with the owner wording', () => {
    const viewer = accessOf({ envRoles: { envA: 'viewer' } });
    expect(() => viewer.require('services.manage', 'No', 'envA')).toThrow(
      expect.objectContaining({ kind: 'forbidden', detail: 'No' }),
    );
    expect(() => viewer.require('services.view', 'No', 'envA')).not.toThrow();
    expect(() => viewer.requireOwnerRight('project.delete')).toThrow(
      expect.objectContaining({ kind: 'forbidden', detail: 'Project owner required' }),
    );
  });

  const managers = customRole('managers', ['project.manage']);
  it.each<[string, Parameters<typeof accessOf>[0], boolean, boolean]>([
    // name, access, may manage the project (settings, custom roles), may do what is the owner's alone
    ['the owner', { owner: true }, true, true],
    ['a member whose custom role grants project.manage', { grants: ['managers#*'], roles: [managers] }, true, false],
    [
      'a member with project.manage granted in one environment only',
      { grants: ['managers#envA'], roles: [managers] },
      false,
      false,
    ],
    ['an environment administrator', { envRoles: { envA: 'administrator' } }, false, false],
    ['a plain member', {}, false, false],
  ])("owner's actions: %s", (_name, opts, manages, ownerOnly) => {
    const access = accessOf(opts);
    expect(access.can('project.manage')).toBe(manages);
    for (const right of OWNER_RIGHTS) {
      expect(access.can(right), right).toBe(ownerOnly);
      const check = () => access.requireOwnerRight(right);
      if (ownerOnly) expect(check).not.toThrow();
      else expect(check).toThrow(expect.objectContaining({ kind: 'forbidden', detail: 'Project owner required' }));
    }
  });
});
