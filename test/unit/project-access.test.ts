import { describe, expect, it } from 'vitest';
import { accessOf, customRole } from '../helpers/access';

describe('ProjectAccess (tenancy/access): custom roles and environment roles where they apply', () => {
  const ops = customRole('ops', ['services.manage', 'webhooks.manage']);

  it.each<[string, Parameters<typeof accessOf>[0], string | undefined, boolean]>([
    // name, access, environment asked about, may manage services there
    ['a grant scoped to env A applies in env A', { grants: ['ops#envA'], roles: [ops] }, 'envA', true],
    ['a grant scoped to env A does not apply in env B', { grants: ['ops#envA'], roles: [ops] }, 'envB', false],
    ['a grant scoped to env A does not apply project-wide', { grants: ['ops#envA'], roles: [ops] }, undefined, false],
    ['a project-wide grant (*) applies in every environment', { grants: ['ops#*'], roles: [ops] }, 'envB', true],
    ['a project-wide grant applies project-wide', { grants: ['ops#*'], roles: [ops] }, undefined, true],
    ['a deleted role grants nothing', { grants: ['ops#*'], roles: [customRole('ops', ['services.manage'], true)] }, 'envA', false],
    ['a grant of a role whose definition is gone grants nothing', { grants: ['ops#*'], roles: [] }, 'envA', false],
    ['a manager role in env A applies there', { envRoles: { envA: 'manager' } }, 'envA', true],
    ['a manager role in env A does not apply in env B', { envRoles: { envA: 'manager' } }, 'envB', false],
    ['an owner manages everywhere', { owner: true }, 'envB', true],
  ])('%s', (_name, opts, envId, may) => {
    expect(accessOf(opts).can('services.manage', envId)).toBe(may);
  });

  it('require refuses with the caller-given detail; requireOwner with the owner wording', () => {
    const viewer = accessOf({ envRoles: { envA: 'viewer' } });
    expect(() => viewer.require('services.manage', 'No', 'envA')).toThrow(expect.objectContaining({ kind: 'forbidden', detail: 'No' }));
    expect(() => viewer.require('services.view', 'No', 'envA')).not.toThrow();
    expect(() => viewer.requireOwner()).toThrow(expect.objectContaining({ kind: 'forbidden', detail: 'Project owner required' }));
  });
});
