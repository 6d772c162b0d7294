import { describe, expect, it } from 'vitest';
import { allRoutes, routeTable } from '../../functions/route-table.ts';
import { createRouter } from '#http/router';
import { buildOpenApi } from '#http/openapi';

const PUBLIC_ROUTES = new Set([
  // SPEC "Authentication" rule 2, plus the API reference itself.
  'POST /auth/login',
  'POST /auth/register',
  'POST /auth/token/refresh',
  'POST /auth/password/reset',
  'POST /auth/password/reset/confirm',
  'POST /invites/accept/by-token',
  'GET /plans',
  'POST /enterprise/request',
  'POST /billing/{payment_provider}/webhook',
  'GET /openapi.json',
  // The link mailed to a new address confirms it; its token is the credential (like the password reset's).
  'POST /auth/email/confirm',
  // Logout needs a credential still, but the refresh token alone suffices once the access token has expired (the domain checks).
  'POST /auth/logout',
  // The document schema reveals nothing. (SPEC's status endpoint taking the token as a query parameter is a
  // signed-in route: the pipeline reads that token too, `tokenInQuery`.)
  'GET /impex/schema',
  // An export's signed link is its credential, as the presigned URL it redirects to is.
  'GET /impex/download/{record_id}',
  // The API reference page and its script, like the document they render.
  'GET /docs',
  'GET /docs/redoc.standalone.js',
  // A machine's sign-in; the API key in the body is its credential.
  'POST /auth/api-key/token',
  // Single sign-on: the start, the identity provider's return and the one-time login code are what sign a person in
  // (the state and the browser-binding cookie, the login code: each single use, short-lived).
  'GET /auth/sso/start',
  'GET /auth/sso/callback',
  'POST /auth/sso/token',
]);

describe('the route table', () => {
  const entries = allRoutes();

  it('gives every route an authorization rule', () => {
    for (const { route } of entries)
      expect(['public', 'user', 'staff'], `${route.method} ${route.path}`).toContain(route.auth);
  });

  it('makes public exactly the routes SPEC lists as public', () => {
    for (const { route } of entries) {
      const key = `${route.method} ${route.path}`;
      expect(route.auth === 'public', key).toBe(PUBLIC_ROUTES.has(key));
    }
  });

  it('gives /admin/* to staff, except GET /admin/features/my', () => {
    for (const { route } of entries.filter((e) => e.route.path.startsWith('/admin/'))) {
      expect(route.auth, route.path).toBe(route.path === '/admin/features/my' ? 'user' : 'staff');
    }
  });

  it('declares every route once across all groups', () => {
    expect(() => createRouter(entries.map((e) => e.route))).not.toThrow();
  });

  it('has a summary and a handler on every route', () => {
    for (const { route } of entries) {
      expect(route.summary.length, route.path).toBeGreaterThan(3);
      expect(typeof route.handler).toBe('function');
    }
  });

  it('documents every route in the OpenAPI document', () => {
    const doc = buildOpenApi(entries);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(entries.map((e) => `${e.route.method} ${e.route.path}`).sort());
    expect(Object.keys(routeTable)).toContain('auth');
  });
});
