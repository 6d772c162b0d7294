import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertDocumented, responseValidator } from '../helpers/openapi-validator.ts';

const doc = JSON.parse(readFileSync(join(import.meta.dirname, '../../openapi.json'), 'utf8'));
const { check } = responseValidator(doc);
const json = (status: number, body: unknown) => ({
  status,
  contentType: 'application/json',
  text: JSON.stringify(body),
});
const project = {
  id: randomUUID(),
  identifier: randomUUID(),
  name: 'p',
  is_owner: true,
  cost_calc_enabled: false,
  updated_at: '2026-01-01T00:00:00Z',
  deleted_at: null,
};

describe('the e2e response validator (test/helpers/openapi-validator.ts)', () => {
  it('accepts an answer whose status is declared and whose body matches its schema', () => {
    expect(check('GET', '/projects?updated_since=x', json(200, [project]))).toEqual([]);
    expect(
      check('POST', '/services', json(400, { detail: 'Environment not found or does not belong to project' })),
    ).toEqual([]);
    expect(
      check('POST', '/auth/login', json(423, { detail: 'locked', locked_until: '2026-01-01T00:00:00.000Z' })),
    ).toEqual([]);
    expect(check('DELETE', `/projects/${project.id}`, { status: 204, contentType: null, text: '' })).toEqual([]);
  });

  it('finds a status the operation does not declare', () => {
    const problems = check('GET', '/plans', json(404, { detail: 'Not Found' }));
    expect(problems).toEqual([expect.stringContaining('status 404 is not declared for GET /plans')]);
  });

  it('finds a body that does not match the declared schema, success or refusal', () => {
    expect(check('GET', '/projects', json(200, [{ ...project, is_owner: 'yes' }]))).toEqual([
      expect.stringMatching(/does not match the declared schema: .*is_owner must be boolean/),
    ]);
    expect(check('GET', '/projects', json(200, { items: [] }))).toEqual([expect.stringContaining('must be array')]);
    expect(check('POST', '/auth/login', json(423, { detail: 'locked' }))).toEqual([
      expect.stringContaining("must have required property 'locked_until'"),
    ]);
    expect(check('POST', '/services', json(400, { message: 'x' }))).toEqual([
      expect.stringContaining("must have required property 'detail'"),
    ]);
    expect(check('GET', '/projects', { status: 200, contentType: 'text/html', text: '<p>' })).toEqual([
      expect.stringContaining('body is not JSON'),
    ]);
  });

  it("finds a poll's 202 without its Retry-After header", () => {
    const pending = json(202, { status: 'pending' });
    expect(
      check('GET', '/subscriptions/checkout-url/j1', { ...pending, header: (n) => (n === 'Retry-After' ? '1' : null) }),
    ).toEqual([]);
    expect(check('GET', '/subscriptions/checkout-url/j1', { ...pending, header: () => null })).toEqual([
      'required header Retry-After is missing',
    ]);
  });

  it('finds a 429 without its Retry-After header', () => {
    const tooMany = json(429, { detail: 'Too many requests' });
    expect(
      check('POST', '/auth/login', { ...tooMany, header: (n) => (n.toLowerCase() === 'retry-after' ? '12' : null) }),
    ).toEqual([]);
    expect(check('POST', '/auth/login', { ...tooMany, header: () => null })).toEqual([
      'required header Retry-After is missing',
    ]);
  });

  it("takes a 404 {detail} for a path no operation matches as the pipeline's Not Found, and anything else there as a finding", () => {
    expect(check('GET', '/no/such/route', json(404, { detail: 'Not Found' }))).toEqual([]);
    expect(check('PUT', '/projects', json(404, { detail: 'Not Found' }))).toEqual([]);
    expect(check('GET', '/no/such/route', json(200, {}))).toEqual([
      expect.stringContaining('no operation in openapi.json for GET /no/such/route'),
    ]);
    expect(check('GET', '/no/such/route', json(404, 'Not Found'))).toEqual([expect.stringContaining('does not match')]);
  });

  it('skips only the local-only routes', () => {
    expect(check('GET', '/_local/pay/checkout/abc', { status: 200, contentType: 'text/html', text: '<html>' })).toEqual(
      [],
    );
    expect(check('GET', '/_local/other', { status: 200, contentType: 'text/html', text: '<html>' })).not.toEqual([]);
  });

  it('throws on a finding, naming method, path, status and the problem (what fails an e2e test)', () => {
    expect(() => assertDocumented('GET', '/plans', json(418, { detail: 'teapot' }))).toThrow(
      /GET \/plans answered 418: status 418 is not declared/,
    );
    expect(() => assertDocumented('GET', '/plans', json(200, []))).not.toThrow();
  });
});
