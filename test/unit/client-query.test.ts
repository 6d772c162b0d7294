import { describe, expect, it } from 'vitest';
import { collect, createInfracatClient } from '../../clients/typescript/src/index.ts';

/**
 * The typed client sends a list's custom field filters as the document describes them: the `cf`
 * parameter (form style, exploded) is its properties, each a query parameter `cf.<key>`, repeated for
 * several values; no cast needed to pass them.
 */
const PROJECT = '11111111-1111-4111-8111-111111111111';
const ENV = '22222222-2222-4222-8222-222222222222';

function recording() {
  const urls: URL[] = [];
  const client = createInfracatClient({
    baseUrl: 'http://api.test',
    accessToken: 'token',
    fetch: async (req) => {
      urls.push(new URL(req.url));
      return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, urls };
}

describe('custom field filters through the typed client', () => {
  it('sends cf.<key> parameters, a repeated one for several values, beside the named filters', async () => {
    const { client, urls } = recording();
    await client.api.GET('/service-floors', {
      params: {
        query: {
          project_id: PROJECT,
          environment_id: ENV,
          tags: ['a', 'b'],
          cf: { 'cf.tier': ['gold', 'silver'], 'cf.team': 'ops & co' },
        },
      },
    });
    const search = urls[0].searchParams;
    expect(search.getAll('cf.tier')).toEqual(['gold', 'silver']);
    expect(search.getAll('cf.team')).toEqual(['ops & co']);
    expect(search.getAll('tags')).toEqual(['a', 'b']);
    expect(search.get('project_id')).toBe(PROJECT);
    expect([...search.keys()].some((k) => k.includes('['))).toBe(false);
  });

  it('pages through services with the filters on every page', async () => {
    const { client, urls } = recording();
    await collect(client.services({ project_id: PROJECT, environment_id: ENV, cf: { 'cf.tier': 'gold' } }));
    expect(urls).toHaveLength(1);
    expect(urls[0].searchParams.getAll('cf.tier')).toEqual(['gold']);
    expect(urls[0].searchParams.get('limit')).toBe('200');
  });
});
