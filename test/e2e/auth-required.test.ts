import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../functions/route-table.ts';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';

/**
 * Authentication comes before everything a route looks at. Every operation of the
 * route table that is not public answers 401 to a request without a token and to one with a garbage
 * token, whatever its path parameters, query and body (here: ids that exist nowhere and an empty
 * body, which every route's schema refuses or ignores).
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);

const guarded = allRoutes().filter(({ route }) => route.auth !== 'public');
const pathOf = (template: string) => template.replace(/\{[^}]+\}/g, () => randomUUID());

describe('every operation that is not public refuses a caller without a usable token', () => {
  it('covers the whole route table (the walk is not empty, and takes the integrations routes)', () => {
    expect(guarded.length).toBeGreaterThan(100);
    expect(guarded.map(({ route }) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['POST /integrations/cloud-accounts', 'POST /integrations/cloud/{provider}/connect']),
    );
  });

  it.each(guarded.map(({ route }) => [`${route.method} ${route.path}`, route] as const))(
    '%s: 401 without a token, and with a garbage one',
    async (_, route) => {
      const path = pathOf(route.path);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const none = await api.call(route.method, path, body);
      expect([none.status, none.body], none.text).toEqual([401, { detail: 'Not authenticated' }]);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const garbage = await api.call(route.method, path, body, { token: 'not-a-token' });
      expect([garbage.status, garbage.body], garbage.text).toEqual([401, { detail: 'Invalid or expired token' }]);
    },
  );
});
