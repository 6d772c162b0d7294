import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, uniqueEmail, type ApiResponse } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';

// The real clock on purpose: the defect was an acceptance whose own (earlier) clock reading let it
// pass the expiry that a revocation committed just before it had set.
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test' });
const api = client(() => ref.stack.url);

const ROUNDS = 20;
const NEW_PASSWORD = 'a brand new passphrase';

async function mailedToken(email: string): Promise<string> {
  await ref.stack.queues.drain();
  const mails = await readOutbox(ref.stack.dataDir, { to: email });
  return linkFrom(mails[mails.length - 1], '/invitations/accept').searchParams.get('token')!;
}

const members = async (token: string, projectId: string) =>
  ((await api.get(`/projects/members/${projectId}`, { token })).body as { email: string }[]).map((m) => m.email);

describe('revoking an invitation against a concurrent acceptance', () => {
  it(`is all or nothing in each of ${ROUNDS} rounds: never a membership from a revoked invitation`, async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const outcomes = { accepted: 0, revoked: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate the two ways in: by link for a new address (account created with the membership),
      // and by id for a signed-in account.
      const byLink = i % 2 === 0;
      const invitee = byLink
        ? { email: uniqueEmail(`race-link-${i}`), token: '' }
        : await signUp(api, uniqueEmail(`race-id-${i}`));
      const created = await api.post(
        '/invites',
        { project_id: projectId, invited_email: invitee.email, environment_id: envId },
        { token: owner.token },
      );
      expect(created.status, created.text).toBe(201);
      const link = byLink ? await mailedToken(invitee.email) : '';

      const accept = (): Promise<ApiResponse> =>
        byLink
          ? api.post('/invites/accept/by-token', { token: link, password: NEW_PASSWORD })
          : api.post(`/invites/${created.body.id}/accept`, undefined, { token: invitee.token });
      // The revocation starts a little later each round (0 to ~40 ms), so it lands before, inside and
      // after the acceptance's read-to-commit window across the rounds.
      const revoke = async () => {
        await new Promise((resolve) => setTimeout(resolve, (i % 10) * 4));
        return api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token });
      };
      const [accepted, revoked] = await Promise.all([accept(), revoke()]);

      const stored = (
        (await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body as {
          id: string;
          accepted: boolean;
          expires_at: string;
        }[]
      ).find((x) => x.id === created.body.id)!;
      const isMember = (await members(owner.token, projectId)).includes(invitee.email);
      const round = `round ${i} (${byLink ? 'by link' : 'by id'}): accept ${accepted.status} ${accepted.text}, revoke ${revoked.status} ${revoked.text}`;
      if (accepted.status === 200 || accepted.status === 204) {
        // The acceptance happened entirely; the revocation was refused.
        outcomes.accepted++;
        expect([revoked.status, revoked.body], round).toEqual([400, { detail: 'Invitation already accepted' }]);
        expect(stored.accepted, round).toBe(true);
        expect(isMember, round).toBe(true);
      } else {
        // Not at all: the invitation is revoked, nobody joined, no account was made from the link.
        outcomes.revoked++;
        expect([accepted.status, accepted.body], round).toEqual([400, { detail: 'Invitation expired' }]);
        expect(revoked.status, round).toBe(204);
        expect(stored.accepted, round).toBe(false);
        expect(Date.parse(stored.expires_at), round).toBeLessThanOrEqual(Date.now());
        expect(isMember, round).toBe(false);
        if (byLink)
          expect((await api.post('/auth/login', { email: invitee.email, password: NEW_PASSWORD })).status, round).toBe(
            401,
          );
        else expect((await api.get('/projects', { token: invitee.token })).body, round).toEqual([]);
      }
    }
    expect(outcomes.accepted + outcomes.revoked).toBe(ROUNDS);
  }, 120_000);
});

describe('resending an accepted invitation', () => {
  it("is refused with 400 'Invitation already accepted' and leaves it accepted", async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const email = uniqueEmail('accepted');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    expect(
      (await api.post('/invites/accept/by-token', { token: await mailedToken(email), password: NEW_PASSWORD })).status,
    ).toBe(200);
    const before = await readOutbox(ref.stack.dataDir, { to: email });
    const resent = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token });
    expect([resent.status, resent.body]).toEqual([400, { detail: 'Invitation already accepted' }]);
    const listed = (await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body;
    expect(listed[0]).toMatchObject({ id: created.body.id, accepted: true, accepted_at: expect.any(String) });
    await ref.stack.queues.drain();
    expect(await readOutbox(ref.stack.dataDir, { to: email })).toHaveLength(before.length);
    expect(await members(owner.token, projectId)).toContain(email);
  });
});
