import { describe, expect, it } from 'vitest';
import {
  capabilities,
  OWNER_RIGHTS,
  PERMISSIONS,
  RESOURCE_KINDS,
  type AccessFacts,
  type Permission,
} from '#auth/permissions';

const views = RESOURCE_KINDS.map((k) => `${k}.view` as Permission);
const manages = RESOURCE_KINDS.map((k) => `${k}.manage` as Permission);
const member: AccessFacts = { isOwner: false, isMember: true };

describe('capabilities (auth/permissions): what a caller may do', () => {
  it.each<[string, AccessFacts, Permission[], Permission[]]>([
    // name, facts, held, not held
    ['a non-member holds nothing, even when marked owner', { isOwner: true, isMember: false }, [], [...PERMISSIONS]],
    ['an owner holds every key', { isOwner: true, isMember: true }, [...PERMISSIONS], []],
    ["an owner holds the rights that are the owner's alone", { isOwner: true, isMember: true }, [...OWNER_RIGHTS], []],
    [
      "a custom grant of project.manage, or naming an owner's right, gives none of those rights",
      { ...member, customGrants: ['project.manage', ...OWNER_RIGHTS] },
      ['project.manage'],
      [...OWNER_RIGHTS],
    ],
    [
      'a member without a role reads every kind and the project users, manages nothing',
      member,
      [...views, 'project_users.view'],
      [
        ...manages,
        'project.manage',
        'env.manage',
        'env.roles.manage',
        'project_users.manage',
        'webhooks.manage',
        'audit.read',
      ],
    ],
    [
      'a viewer reads every kind and manages none (no services.manage)',
      { ...member, envRole: 'viewer' },
      views,
      [...manages, 'env.roles.manage'],
    ],
    [
      'a manager manages the catalog kinds but not the roles',
      { ...member, envRole: 'manager' },
      [...views, ...manages],
      ['env.roles.manage', 'env.manage', 'project.manage'],
    ],
    [
      'an administrator also assigns environment roles',
      { ...member, envRole: 'administrator' },
      [...views, ...manages, 'env.roles.manage'],
      ['env.manage', 'project.manage', 'project_users.manage'],
    ],
    [
      'a custom grant adds exactly its keys',
      { ...member, customGrants: ['webhooks.manage', 'audit.read'] },
      ['webhooks.manage', 'audit.read', 'services.view'],
      ['services.manage', 'project.manage'],
    ],
    [
      'an unknown key in a custom role grants nothing',
      { ...member, customGrants: ['services.delete', '*', 'admin'] },
      views,
      manages,
    ],
  ])('%s', (_name, facts, held, notHeld) => {
    const caps = capabilities(facts);
    for (const p of held) expect(caps.has(p), `holds ${p}`).toBe(true);
    for (const p of notHeld) expect(caps.has(p), `lacks ${p}`).toBe(false);
  });

  it('a role of null (no role in this environment) is a plain member', () => {
    expect([...capabilities({ ...member, envRole: null })].sort()).toEqual([...capabilities(member)].sort());
  });
});
