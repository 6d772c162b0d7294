import { describe, expect, it } from 'vitest';
import { changedFields, scrub } from '#shared/audit';

/** What an audit entry may hold (the one deny-list) and which fields it records. */
describe('the audit deny-list', () => {
  it('drops secrets, hashes, tokens, keys and credentials at any depth, and internal bookkeeping', () => {
    const value = {
      name: 'svc',
      password_hash: 'x',
      token_hash: 'x',
      secret: 'x',
      previous_secret: 'x',
      api_key: 'x',
      apiKey: 'x',
      key_value: 'x',
      credentials: { a: 1 },
      token_sealed: 'x',
      external_id: 'x',
      totp_secret: 'x',
      recovery_codes: ['x'],
      signing_key: 'x',
      audit_head: 'x',
      updated_at: 'x',
      service_count: 3,
      nested: { refresh_token: 'x', keep: 1, list: [{ session_id: 'x', label: 'y' }] },
      footprint: 'kept',
      hashtags_note: undefined,
      private_key: 'x',
      privateKey: 'x',
      is_private: false,
    };
    // A network's is_private is a setting, not a secret: its change is recorded.
    expect(scrub(value)).toEqual({
      name: 'svc',
      nested: { keep: 1, list: [{ label: 'y' }] },
      footprint: 'kept',
      is_private: false,
    });
  });

  it('records set fields on a creation, the fields held on a deletion, only changed fields on an update', () => {
    expect(changedFields(null, { a: 1, b: null, c: [], d: ['x'] })).toEqual({
      before: null,
      after: { a: 1, d: ['x'] },
    });
    expect(changedFields({ a: 1, b: null }, null)).toEqual({ before: { a: 1 }, after: null });
    expect(changedFields({ a: 1, b: [1, 2], c: 'same' }, { a: 2, b: [1, 2], c: 'same', d: 'new' })).toEqual({
      before: { a: 1, d: null },
      after: { a: 2, d: 'new' },
    });
    expect(changedFields({ a: 1, password: 'old' }, { a: 1, password: 'new' })).toEqual({ before: {}, after: {} });
  });
});
