import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { getItem } from '#db/items';
import { releaseLease, renewLease, takeLease } from '#db/lease';

useTestStack({}, { withoutHttp: true });

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const TTL = 120_000;

describe('a lease (db/lease.ts: the import lock)', () => {
  it('one of many concurrent takers holds it; the others are told who', async () => {
    const key = { PK: `TEST#${randomUUID()}`, SK: 'LEASE' };
    const outs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => takeLease(key, { holder: `h${i}`, owner: `job-${i}` }, at(0), TTL)),
    );
    const won = outs.flatMap((o, i) => (o.ok ? [i] : []));
    expect(won).toHaveLength(1);
    for (const o of outs)
      if (!o.ok)
        expect(o.held).toMatchObject({ holder: `h${won[0]}`, owner: `job-${won[0]}`, since: at(0).toISOString() });
  });

  it('its owner renews and releases it; nobody else can; once expired, anyone takes it', async () => {
    const key = { PK: `TEST#${randomUUID()}`, SK: 'LEASE' };
    expect((await takeLease(key, { holder: 'a', owner: 'job-a' }, at(0), TTL)).ok).toBe(true);
    expect(await renewLease(key, 'job-b', at(1000), TTL)).toBe(false);
    expect(await renewLease(key, 'job-a', at(60_000), TTL)).toBe(true);
    // Renewed at 60 s: still held at 150 s, free after 180 s.
    expect((await takeLease(key, { holder: 'b', owner: 'job-b' }, at(150_000), TTL)).ok).toBe(false);
    expect((await takeLease(key, { holder: 'a', owner: 'job-a' }, at(150_000), TTL)).ok).toBe(true);
    expect((await takeLease(key, { holder: 'b', owner: 'job-b' }, at(150_000 + TTL + 1), TTL)).ok).toBe(true);
    expect(await releaseLease(key, 'job-a')).toBe(false);
    expect(await releaseLease(key, 'job-b')).toBe(true);
    expect(await getItem(key)).toBeUndefined();
  });
});
