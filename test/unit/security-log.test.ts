import { describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import { appContext } from '#shared/context';
import { securityLogItem } from '#domain/identity';
import { encodeCursor, pageStart } from '#auth/cursor';

// What one security-log entry stores (the e2e tests read them over HTTP: test/e2e/security-log.test.ts).
const at = new Date('2026-03-01T12:00:00.000Z');
const origin = { requestId: 'req-1', sourceIp: '203.0.113.7', userAgent: 'x'.repeat(300) };
const USER = '7b0a4a53-6f53-4a55-9d0e-0d4f7a1c1a11';

describe('a security-log entry', () => {
  it('is kept SECURITY_LOG_RETENTION_DAYS (default 365) through the table TTL, in its own time-ordered partition', () => {
    expect(reloadConfig().SECURITY_LOG_RETENTION_DAYS).toBe(365);
    const item = securityLogItem(
      USER,
      { event: 'sign_in.refused', reason: 'invalid_credentials', actor: 'anonymous' },
      appContext({ clock: { now: () => at }, origin }),
    );
    expect(item.PK).toBe(`USER#${USER}#SECLOG`);
    expect(item.SK).toBe(`${at.toISOString()}#${item.id}`);
    expect(item.expires_at_epoch).toBe(at.getTime() / 1000 + 365 * 86_400);
    expect(item).toMatchObject({
      source_ip: '203.0.113.7',
      request_id: 'req-1',
      actor: 'anonymous',
      actor_id: null,
      reason: 'invalid_credentials',
    });
    expect((item.user_agent as string).length).toBe(256);
    const shorter = securityLogItem(
      USER,
      { event: 'sign_in.succeeded' },
      {
        ...appContext({ clock: { now: () => at }, origin }),
        config: reloadConfig({ SECURITY_LOG_RETENTION_DAYS: '30' }),
      },
    );
    expect(shorter.expires_at_epoch).toBe(at.getTime() / 1000 + 30 * 86_400);
    reloadConfig();
  });

  it('made outside a request (a tool, a worker) has no address, device or request id', () => {
    const item = securityLogItem(USER, { event: 'sessions.revoked' }, appContext({ clock: { now: () => at } }));
    expect(item).toMatchObject({ source_ip: null, user_agent: null, request_id: null, actor: 'anonymous' });
  });
});

describe('a page cursor', () => {
  it('reads back only as handed out, and only for its own partition', async () => {
    const cursor = await encodeCursor({ PK: 'P#1', SK: '2026#a' });
    expect(await pageStart(cursor, 'P#1')).toEqual({ PK: 'P#1', SK: '2026#a' });
    expect(await pageStart(undefined, 'P#1')).toBeUndefined();
    const forged = `${Buffer.from(JSON.stringify({ PK: 'P#1', SK: '2027#b' })).toString('base64url')}.${cursor.split('.')[1]}`;
    for (const [bad, pk] of [
      [cursor, 'P#2'],
      [`${cursor}x`, 'P#1'],
      ['', 'P#1'],
      ['%%%', 'P#1'],
      [forged, 'P#1'],
    ]) {
      await expect(pageStart(bad, pk)).rejects.toMatchObject({ kind: 'unprocessable' });
    }
  });
});
