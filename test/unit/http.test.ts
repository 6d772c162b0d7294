import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseQuery } from '#http/query';
import { parseCookies } from '#http/cookies';
import { validateParts } from '#http/validation';
import { AppError } from '#http/errors';

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
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(422);
      expect((err as AppError).detail).toEqual([
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
      expect((err as AppError).detail).toEqual([{ loc: ['body', 'role'], msg: 'Field required', type: 'missing' }]);
    }
  });

  it('returns the parsed values when valid', () => {
    expect(validateParts([{ part: 'query', schema: z.object({ limit: z.coerce.number() }), value: { limit: '5' } }])).toEqual([{ limit: 5 }]);
  });
});
