import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { batchWrite } from '#db/batch-write';
import { keys } from '#db/keys';
import { prefixCondition, queryNewest, queryPage, queryPartition, queryPrefixPages } from '#db/query';

useTestStack({}, { withoutHttp: true });

// Sort keys around the prefixes below: each query must answer exactly those that start with its prefix.
const SKS = [
  'A"',
  'A#',
  'A#a',
  'A#z',
  'A#\u{D7FF}',
  'A#\u{D7FF}q',
  'A#\u{E000}',
  'A#\u{10FFFF}',
  'A#\u{10FFFF}x',
  'A$',
  'A$a',
  'B#',
];
const under = (prefix: string) => SKS.filter((sk) => sk.startsWith(prefix)).sort(byUtf8);
// DynamoDB orders sort keys by their UTF-8 bytes, which is code-point order.
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function seed() {
  const projectId = randomUUID();
  const PK = keys.projectPK(projectId);
  await batchWrite(SKS.map((SK) => ({ put: { PK, SK, note: `n-${SK}` } })));
  return { projectId, PK };
}

describe('a sort-key prefix read as a BETWEEN (db/query.ts)', () => {
  it('ends the range at the prefix with its last code point raised, past surrogates and the last code point', () => {
    expect(prefixCondition('SERVICE#').values).toEqual({ ':sk': 'SERVICE#', ':skEnd': 'SERVICE$' });
    expect(prefixCondition('A#\u{D7FF}').values[':skEnd']).toBe('A#\u{E000}');
    expect(prefixCondition('A#\u{10FFFF}').values[':skEnd']).toBe('A$');
    expect(prefixCondition('\u{10FFFF}').condition).toBe('begins_with(SK, :sk)');
  });

  it('every reader answers the keys under the prefix and none past it, the range end included', async () => {
    const { projectId, PK } = await seed();
    for (const prefix of ['A#', 'A#\u{D7FF}', 'A#\u{10FFFF}', 'A$', 'A']) {
      const want = under(prefix);
      expect((await queryPartition<{ SK: string }>(PK, prefix)).map((i) => i.SK)).toEqual(want);
      expect((await queryPage<{ SK: string }>(projectId, prefix, { wanted: 3 })).map((i) => i.SK)).toEqual(
        want.slice(0, 3),
      );
      expect((await queryNewest<{ SK: string }>(PK, prefix, { limit: 2 })).map((i) => i.SK)).toEqual(
        want.slice(-2).reverse(),
      );
      const paged: string[] = [];
      for await (const page of queryPrefixPages<{ note: string }>(projectId, prefix, { projection: ['note'] }))
        paged.push(...page.map((i) => i.note));
      expect(paged).toEqual(want.map((sk) => `n-${sk}`));
    }
  });

  it('a projection without the sort key answers items without it', async () => {
    const { PK } = await seed();
    expect(await queryPartition(PK, 'A#\u{10FFFF}', { projection: ['note'] })).toEqual([
      { note: 'n-A#\u{10FFFF}' },
      { note: 'n-A#\u{10FFFF}x' },
    ]);
  });
});
