import { describe, expect, it } from 'vitest';
import { createRouter } from '#http/router';
import { route, ok } from '#http/route';

const r = (method: 'GET' | 'POST' | 'PATCH', path: string) =>
  route({ method, path, auth: 'user', summary: path, handler: async () => ok(path) });

describe('router', () => {
  const routes = [
    r('GET', '/projects/{project_id}/plan'),
    r('GET', '/projects/stats'),
    r('GET', '/projects/{project_id}'),
    r('PATCH', '/projects/{project_id}'),
  ];
  const router = createRouter(routes);

  it('prefers literal segments over parameters', () => {
    expect(router.match('GET', '/projects/stats')?.route.path).toBe('/projects/stats');
    expect(router.match('GET', '/projects/abc')?.params).toEqual({ project_id: 'abc' });
  });

  it('matches on method and decodes parameters', () => {
    expect(router.match('PATCH', '/projects/a%20b')?.params).toEqual({ project_id: 'a b' });
    expect(router.match('POST', '/projects/abc')).toBeUndefined();
    expect(router.match('GET', '/projects/abc/plan/extra')).toBeUndefined();
  });

  it("uses API Gateway's route key and path parameters when given", () => {
    expect(router.match('GET', '/ignored', 'GET /projects/{project_id}/plan', { project_id: 'p1' })).toEqual({
      route: routes[0],
      params: { project_id: 'p1' },
    });
  });

  it('refuses a route declared twice', () => {
    expect(() => createRouter([r('GET', '/a'), r('GET', '/a')])).toThrow(/declared twice/);
  });
});

describe('router: malformed percent-escapes', () => {
  const router = createRouter([r('GET', '/services/{service_id}')]);
  it('matches nothing for a path parameter that does not decode', () => {
    for (const path of ['/services/%ZZ', '/services/%', '/services/%E0%A4%A', '/services/%ED%A0%80'])
      expect(router.match('GET', path)).toBeUndefined();
    expect(router.match('GET', '/services/%41')?.params).toEqual({ service_id: 'A' });
  });
});
