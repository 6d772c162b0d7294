import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseQuery } from '#http/query';
import { parseCookies } from '#http/cookies';
import { validateParts } from '#http/validation';
import {
  DomainError,
  conflict,
  forbidden,
  gone,
  invalid,
  locked,
  notFound,
  rateLimited,
  unauthenticated,
  unsupportedMediaType,
} from '#shared/errors';
import { refusalReply } from '#http/errors';
import { concurrentChange } from '#db/transact';

describe('query strings', () => {
  it('turns repeated parameters into arrays', () => {
    expect(parseQuery('tags=a&tags=b&name=x%20y')).toEqual({ tags: ['a', 'b'], name: 'x y' });
    expect(parseQuery(undefined)).toEqual({});
  });
});

describe('cookies', () => {
  it('reads API Gateway cookie lists and Cookie headers; the first of a name wins', () => {
    expect(parseCookies(['a=1', 'b=x%3Dy', 'a=2'])).toEqual({ a: '1', b: 'x=y' });
    expect(parseCookies(undefined, 'a=1; b=2')).toEqual({ a: '1', b: '2' });
  });
});

describe('validation', () => {
  it('reports every failing part with loc, msg and type', () => {
    try {
      validateParts([
        { part: 'path', schema: z.object({ id: z.uuid() }), value: { id: 'nope' } },
        { part: 'body', schema: z.object({ name: z.string() }), value: {} },
      ]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).kind).toBe('unprocessable');
      expect((err as DomainError).detail).toEqual([
        { loc: ['path', 'id'], msg: expect.any(String), type: 'invalid_format' },
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      ]);
    }
  });

  it('names an absent enum field missing too', () => {
    try {
      validateParts([{ part: 'body', schema: z.object({ role: z.enum(['viewer', 'manager']) }), value: {} }]);
      expect.unreachable();
    } catch (err) {
      expect((err as DomainError).detail).toEqual([{ loc: ['body', 'role'], msg: 'Field required', type: 'missing' }]);
    }
  });

  it('returns the parsed values when valid', () => {
    expect(
      validateParts([{ part: 'query', schema: z.object({ limit: z.coerce.number() }), value: { limit: '5' } }]),
    ).toEqual([{ limit: 5 }]);
  });
});

describe('refusals', () => {
  it('maps each domain refusal to its status, body and headers in one place', () => {
    expect(refusalReply(invalid('Name taken'))).toEqual({ status: 400, body: { detail: 'Name taken' }, headers: {} });
    expect(refusalReply(unauthenticated('Not authenticated'))).toEqual({
      status: 401,
      body: { detail: 'Not authenticated' },
      headers: { 'www-authenticate': 'Bearer' },
    });
    expect(refusalReply(forbidden('No'))).toMatchObject({ status: 403 });
    expect(refusalReply(notFound('Project not found'))).toMatchObject({
      status: 404,
      body: { detail: 'Project not found' },
    });
    expect(refusalReply(conflict('Busy'))).toEqual({ status: 409, body: { detail: 'Busy' }, headers: {} });
    // A lost race (its retries spent) says when to send it again; a plain conflict above does not.
    expect(refusalReply(concurrentChange())).toEqual({
      status: 409,
      body: { detail: 'The request conflicted with a concurrent change. Please retry.' },
      headers: { 'retry-after': '1' },
    });
    expect(refusalReply(gone('Link expired'))).toMatchObject({ status: 410 });
    expect(refusalReply(unsupportedMediaType('Send JSON'))).toMatchObject({
      status: 415,
      body: { detail: 'Send JSON' },
    });
    expect(
      refusalReply(locked('Locked', new Date('2026-01-01T00:15:00.000Z'), new Date('2026-01-01T00:00:00.500Z'))),
    ).toEqual({
      status: 423,
      body: { detail: 'Locked', locked_until: '2026-01-01T00:15:00.000Z' },
      headers: { 'retry-after': '900' }, // the seconds left, rounded up
    });
    expect(refusalReply(rateLimited(42))).toEqual({
      status: 429,
      body: { detail: 'Too many requests' },
      headers: { 'retry-after': '42' },
    });
  });
});

describe('validation: text (item 9)', () => {
  const schema = z.object({ name: z.string(), tags: z.array(z.string()).optional() });
  const detailOf = (value: unknown) => {
    try {
      validateParts([{ part: 'body', schema, value }]);
      return undefined;
    } catch (err) {
      return (err as DomainError).detail;
    }
  };
  it('refuses NUL characters and unpaired surrogates anywhere, naming the field', () => {
    expect(detailOf({ name: 'a\0' })).toEqual([
      { loc: ['body', 'name'], msg: 'String must not contain NUL characters', type: 'string_nul_character' },
    ]);
    expect(detailOf({ name: 'ok', tags: ['x', '\udc00'] })).toEqual([
      {
        loc: ['body', 'tags', 1],
        msg: 'String must not contain unpaired UTF-16 surrogates',
        type: 'string_unpaired_surrogate',
      },
    ]);
    expect(detailOf({ name: 'a\ud800' })).toHaveLength(1);
    expect(detailOf({ name: '\ud83d\ude80 ok' })).toBeUndefined();
  });
});
