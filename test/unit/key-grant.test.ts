import { describe, expect, it } from 'vitest';
import {
  KEY_TOKEN_ACCOUNT_ONLY,
  KEY_TOKEN_READ_ONLY,
  READING_POST_ROUTES,
  keyAllowsProject,
  keyBodyRefusal,
  keyGrantRefusal,
} from '#auth/key-grant';
import { allRoutes } from '../../functions/route-table.ts';

const read = { key_id: 'k', scopes: ['read'], project_ids: null };
const write = { ...read, scopes: ['read', 'write'] };
const ALLOWED = null;

describe("keyGrantRefusal (auth/key-grant): what an API key's token may call", () => {
  it.each<[string, string, boolean, typeof read, string | null]>([
    ['GET', '/projects', false, read, ALLOWED],
    ['GET', '/auth/me', false, read, ALLOWED],
    ['POST', '/services', false, read, KEY_TOKEN_READ_ONLY],
    ['POST', '/services', false, write, ALLOWED],
    ['DELETE', '/services/{service_id}', false, write, ALLOWED],
    ['POST', '/impex/import', false, write, ALLOWED],
    ['POST', '/impex/import', false, read, ALLOWED],
    ['POST', '/impex/progress-ticket', false, read, ALLOWED],
    ['POST', '/impex/cancel/{job_id}', false, read, KEY_TOKEN_READ_ONLY],
    ['GET', '/me/api-keys', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/me/api-keys', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['DELETE', '/me/metrics-api-keys/{key_id}', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/auth/sessions', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['DELETE', '/auth/sessions/{session_id}', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/auth/totp/provision', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/auth/me/security-log', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['PATCH', '/auth/me', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/me/billing/portal', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/subscriptions/choose', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/me/downgrade/confirm', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/me/mark-archived', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['POST', '/invites/{invite_id}/accept', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/me/archived/services', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/me/audit-log', false, write, KEY_TOKEN_ACCOUNT_ONLY],
    ['GET', '/auth/me/capabilities', false, read, ALLOWED],
    ['GET', '/admin/users', true, write, KEY_TOKEN_ACCOUNT_ONLY],
  ])('%s %s (staff %s)', (method, path, staff, grant, refusal) => {
    expect(keyGrantRefusal({ method, path, staff }, grant)).toBe(refusal);
  });

  it('every account-only pattern matches a route of the table (none is stale)', () => {
    const refused = allRoutes().filter(
      ({ route }) =>
        route.auth === 'user' && keyGrantRefusal({ method: route.method, path: route.path, staff: false }, write),
    );
    expect(refused.map(({ route }) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining([
        'GET /me/api-keys',
        'DELETE /auth/sessions',
        'POST /auth/totp/delete',
        'GET /me/invoices',
        'GET /invoice/{invoice_id}',
        'POST /me/unarchive',
      ]),
    );
  });

  it('every reading POST is a route of the table (none is stale)', () => {
    const routes = new Set(allRoutes().map(({ route }) => `${route.method} ${route.path}`));
    expect(READING_POST_ROUTES.filter((r) => !routes.has(r))).toEqual([]);
  });
});

describe('keyBodyRefusal: a read key plans but never applies', () => {
  const importRoute = { method: 'POST', path: '/impex/import', staff: false };
  it.each<[string, unknown, typeof read, string | null]>([
    ['a dry run, read key', { dry_run: 'true' }, read, ALLOWED],
    ['an import, read key', { dry_run: 'false' }, read, KEY_TOKEN_READ_ONLY],
    ['an import without dry_run, read key', {}, read, KEY_TOKEN_READ_ONLY],
    ['an import, write key', { dry_run: 'false' }, write, ALLOWED],
  ])('%s', (_label, body, grant, refusal) => {
    expect(keyBodyRefusal(importRoute, grant, body)).toBe(refusal);
  });

  it('leaves every other route to keyGrantRefusal', () => {
    expect(keyBodyRefusal({ method: 'POST', path: '/services', staff: false }, read, { dry_run: 'true' })).toBe(
      ALLOWED,
    );
    expect(
      keyBodyRefusal({ method: 'POST', path: '/impex/progress-ticket', staff: false }, read, { job_id: 'j' }),
    ).toBe(ALLOWED);
  });
});

describe('keyAllowsProject: the projects of a key', () => {
  it.each<[readonly string[] | null | undefined, string, boolean]>([
    [undefined, 'p1', true],
    [null, 'p1', true],
    [['p1'], 'p1', true],
    [['p1'], 'p2', false],
  ])('limit %j, project %s → %s', (limit, project, allowed) => {
    expect(keyAllowsProject(limit, project)).toBe(allowed);
  });
});
