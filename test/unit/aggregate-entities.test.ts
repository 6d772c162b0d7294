import { describe, expect, it } from 'vitest';
import { accountEntity, sessionEntity } from '#shared/account-entity';
import { groupEntity, projectEntity } from '#domain/tenancy';
import { membershipEntity } from '../../shared/domain/tenancy/membership-entity.ts';
import { invitationEntity } from '../../shared/domain/tenancy/invitation-entity.ts';
import { refsAsRead } from '#db/refs';

/** The aggregates read through their entities (shared/db/entity.ts): an older item missing a field enters with its default, never unchecked. */
describe('aggregate entities', () => {
  it('decode an older project without its counters as zeros, and drop key attributes', () => {
    const old = {
      PK: 'PROJECT#p',
      SK: 'PROJECT',
      type: 'project',
      id: 'p',
      identifier: 'i',
      name: 'Shop',
      owner_id: 'u',
      created_at: 't',
      updated_at: 't',
    };
    expect(projectEntity.decode(old)).toStrictEqual({
      id: 'p',
      identifier: 'i',
      name: 'Shop',
      cost_calc_enabled: false,
      owner_id: 'u',
      created_at: 't',
      updated_at: 't',
      deleted_at: null,
      env_count: 0,
      service_count: 0,
      project_user_count: 0,
      custom_role_count: 0,
    });
  });

  it('answer nothing for a read that found nothing', () => {
    expect(projectEntity.decodeFound(undefined)).toBeUndefined();
    expect(accountEntity.decodeFound(undefined)).toBeUndefined();
  });

  it('keep a group without a refs version without one, so its delete still asks that none was added', () => {
    const group = groupEntity.decode({
      id: 'g',
      project_id: 'p',
      environment_id: 'e',
      name: 'web',
      created_at: 't',
      updated_at: 't',
    });
    expect(group).toMatchObject({ description: null, subgroup_count: 0, deleted_at: null });
    expect('refs_version' in group).toBe(false);
    expect(refsAsRead(group).expression).toBe('attribute_exists(PK) AND attribute_not_exists(#refs)');
    expect(refsAsRead(groupEntity.decode({ ...group, refs_version: 3 })).values).toEqual({ ':refs': 3 });
  });

  it("keep a membership's mirrored grants", () => {
    const member = membershipEntity.decode({
      project_id: 'p',
      user_id: 'u',
      role: 'member',
      created_at: 't',
      custom_role_grants: new Set(['r#*']),
    });
    expect([...member.custom_role_grants!]).toEqual(['r#*']);
  });

  it('read an account missing is_active as blocked and missing flags as unset', () => {
    const account = accountEntity.decode({
      id: 'u',
      email: 'a@b.c',
      account_type: 'customer',
      password_hash: 'h',
      created_at: 't',
      updated_at: 't',
    });
    expect(account).toMatchObject({
      is_active: false,
      is_staff: false,
      is_superuser: false,
      token_version: 0,
      name: null,
      last_login_at: null,
    });
    expect(account.totp_device_count).toBeUndefined();
  });

  it('read an older invitation as open, with no scope and the default role left to acceptance', () => {
    const invite = invitationEntity.decode({
      id: 'i',
      project_id: 'p',
      invited_email: 'a@b.c',
      invited_by_user_id: 'u',
      created_at: 't',
      updated_at: 't',
      expires_at: 'x',
      token_hash: 'h',
    });
    expect(invite).toMatchObject({
      accepted: false,
      role: null,
      environment_id: null,
      group_id: null,
      subgroup_id: null,
      accepted_at: null,
    });
    expect(
      sessionEntity.decode({
        id: 's',
        user_id: 'u',
        refresh_hash: 'h',
        device: 'd',
        ip: '1',
        created_at: 't',
        last_seen_at: 't',
        expires_at: 'x',
        PK: 'A',
      }),
    ).not.toHaveProperty('PK');
  });
});
