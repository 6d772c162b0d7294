import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { httpHandler } from '#http/pipeline';
import { securityHeaders, withSecurityHeaders, checkCrossSite } from '#http/security';
import { reloadConfig, type Config } from '#shared/config';
import { apiEvent, lambdaContext } from '../../infra/local/api-event.ts';
import { FALLBACK_GROUP, routeTable } from '../../functions/route-table.ts';

/** The Lambda handlers themselves, with the API Gateway event Lambda receives (no table needed: nothing here reaches a lookup). */
const invoke = async (group: keyof typeof routeTable, req: Parameters<typeof apiEvent>[0]) =>
  (await httpHandler(routeTable[group] as never)(
    apiEvent(req),
    lambdaContext('test', group),
  )) as APIGatewayProxyStructuredResultV2;

describe('Lambda handler: malformed percent-escapes (item 5)', () => {
  it("answers 404 Not Found from the $default route's function and from a group's own", async () => {
    for (const url of ['/services/%ZZ', '/services/%E0%A4%A', '/projects/%']) {
      for (const group of [FALLBACK_GROUP, 'services', 'projects'] as const) {
        const res = await invoke(group, { method: 'GET', url });
        expect([url, group, res.statusCode, JSON.parse(res.body!)]).toEqual([url, group, 404, { detail: 'Not Found' }]);
        expect(res.headers?.['x-content-type-options']).toBe('nosniff');
      }
    }
  });
});

describe('security headers and cross-site checks (item 7)', () => {
  const cfg = (env: Record<string, string>) => ({ ...reloadConfig(env) }) as Config;

  it('sends HSTS only when the app is served over https', () => {
    expect(securityHeaders(cfg({ APP_BASE_URL: 'http://localhost:3000' }))).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    expect(securityHeaders(cfg({ APP_BASE_URL: 'https://app.example.com' }))['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
  });

  it('forces no-store on authenticated answers, keeps a public route’s own cache header', () => {
    reloadConfig({ APP_BASE_URL: 'http://localhost:3000' });
    const cached = { statusCode: 200, headers: { 'cache-control': 'public, max-age=300' }, body: '{}' };
    expect(withSecurityHeaders(cached, false).headers?.['cache-control']).toBe('public, max-age=300');
    expect(withSecurityHeaders(cached, true).headers?.['cache-control']).toBe('no-store');
  });

  it('answers a cross-site cookie write from the handler too, before the body is parsed', async () => {
    reloadConfig({ APP_BASE_URL: 'https://app.example.com' });
    const headers = { cookie: 'access_token=x', 'content-type': 'text/plain' };
    const text = await invoke('projects', { method: 'POST', url: '/projects', headers, body: 'not json' });
    expect([text.statusCode, JSON.parse(text.body!)]).toEqual([
      415,
      { detail: 'Unsupported media type: send application/json' },
    ]);
    const foreign = await invoke('projects', {
      method: 'POST',
      url: '/projects',
      headers: { ...headers, origin: 'https://evil.example' },
      body: '{}',
    });
    expect([foreign.statusCode, JSON.parse(foreign.body!)]).toEqual([403, { detail: 'Origin not allowed' }]);
    expect(foreign.headers?.['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    // Bearer: untouched (and then refused as any bad token is)
    const bearer = await invoke('projects', {
      method: 'POST',
      url: '/projects',
      headers: { ...headers, authorization: 'Bearer x', origin: 'https://evil.example' },
      body: '{"name":"a"}',
    });
    expect(bearer.statusCode).toBe(401);
    const emptyAuthorization = await invoke('projects', {
      method: 'POST',
      url: '/projects',
      headers: { ...headers, authorization: '' },
      body: '{}',
    });
    expect(emptyAuthorization.statusCode).toBe(415);
    expect(() =>
      checkCrossSite(
        apiEvent({
          method: 'GET',
          url: '/projects',
          headers: { cookie: 'access_token=x', origin: 'https://evil.example' },
        }),
      ),
    ).not.toThrow();
  });

  it('refuses a malformed ALLOWED_ORIGINS at start', () => {
    expect(() => reloadConfig({ ALLOWED_ORIGINS: 'https://ok.example.com, not an origin' })).toThrow(/ALLOWED_ORIGINS/);
    expect(reloadConfig({ ALLOWED_ORIGINS: 'https://ok.example.com,http://localhost:5173/' }).ALLOWED_ORIGINS).toEqual([
      'https://ok.example.com',
      'http://localhost:5173/',
    ]);
    reloadConfig();
  });
});
