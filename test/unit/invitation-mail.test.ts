import { describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import { oneLine } from '#mail/html';

describe('invitation mail settings (docs/decisions/0048-invitation-resend-and-mail-limits-control-characters-in-mail.md)', () => {
  it('limits invitations and resends by default to 100 an hour per inviter and 50 an hour per project', () => {
    const defaults = reloadConfig();
    expect(defaults.INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR).toBe(100);
    expect(defaults.INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR).toBe(50);
  });

  it('mails one invitation by default at most once a minute and five times an hour', () => {
    const defaults = reloadConfig();
    expect(defaults.INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE).toBe(1);
    expect(defaults.INVITATION_RATE_LIMIT_PER_INVITATION_PER_HOUR).toBe(5);
  });

  it('makes a name one line: C0, DEL, C1 and line separators become one space', () => {
    expect(oneLine('\r\n a\r\nb\u0000c\u0007d\u001be\u007ff\u0085g\u009bh\u2028i\u2029j\tk \u000b ')).toBe(
      'a b c d e f g h i j k',
    );
    expect(oneLine('Zoë Łukasz 日本 \u00a0ok')).toBe('Zoë Łukasz 日本 ok');
  });
});
