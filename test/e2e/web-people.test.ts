import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { keepScreenshot, launchChromium, pageProblems, settled } from '../helpers/browser.ts';
import { frozenClock, postFrom, totpCode } from '../helpers/sign-in.ts';
import { axeViolations } from '../helpers/axe.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { setPlan } from '../helpers/plans.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';

/**
 * The dashboard's people screens in a real browser against a local stack: password reset
 * through the mailed link, a project's members and invitations (an invitation accepted in another
 * browser), project users, custom roles, and the account (profile, e-mail change, an authenticator
 * enrolled from the screen, recovery codes, sessions; API keys have their own page and test,
 * web-api-keys). Every screen passes axe-core at
 * 1280 and at 390 px and fits the window. The tests share one page and build on each other, in order.
 */
const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);
const NEW_PASSWORD = 'a much better passphrase';
let owner: { id: string; email: string };
let projectId: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const url = (path = '') => ref.stack.url + path;
const heading = () => page.getByRole('heading', { level: 1 });
const status = () => page.getByRole('status');
/** Every status and alert shown (a failed expectation then shows what the screen said instead). */
const says = () => page.locator('[role=status], [role=alert]').allTextContents();
/** Up to 10 s: password hashing, on a machine shared with other test runs, takes more than poll's default second. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

/** No serious or critical axe violation and nothing wider than the window, at 1280 and at 390 px. */
async function checkScreen(name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await keepScreenshot(page, `people-${name}-${width}`);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    const wide =
      overflow > 0
        ? await page.evaluate(
            "[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.tagName + '.' + e.className + '#' + e.id).slice(-5).join(' ')",
          )
        : '';
    expect(overflow, `${name} is wider than ${width} px: ${wide}`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function mailTo(address: string, path: string): Promise<URL> {
  await ref.stack.queues.drain();
  const mails = await readOutbox(ref.stack.dataDir, { to: address });
  return linkFrom(mails[mails.length - 1], path);
}

beforeAll(async () => {
  const account = await signUp(api, uniqueEmail('people'));
  owner = account;
  await setPlan(account.id, 'Team'); // custom roles need a plan that has them
  ({ projectId } = await projectWithEnv(api, account.token, 'Shop'));
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  problems = await pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
});

describe('password reset', () => {
  it('asks for a link from the sign-in screen, with the same neutral answer for any address', async () => {
    await page.goto(url('/sign-in'));
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(url('/reset-password'));
    await poll(() => heading().textContent()).toBe('Reset your password');
    await checkScreen('reset request');

    await page.getByLabel('Email', { exact: true }).fill('nobody-here@example.com');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await poll(() => status().textContent()).toMatch(
      /^If nobody-here@example\.com belongs to an account, a link to choose a new password is on its way/,
    );
    const unknown = (await status().textContent())!.replace('nobody-here@example.com', '<address>');

    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await poll(() => status().textContent()).toContain(owner.email);
    expect((await status().textContent())!.replace(owner.email, '<address>')).toBe(unknown);
  });

  it('sets a new password through the mailed link, then signs in with it; the link works once', async () => {
    const link = await mailTo(owner.email, '/reset-password');
    expect(link.origin).toBe(new URL(ref.stack.url).origin);
    await page.goto(link.href);
    await poll(() => heading().textContent()).toBe('Choose a new password');
    await checkScreen('choose a new password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await poll(() => heading().textContent()).toBe('Password changed');
    await checkScreen('password changed');
    await page.getByRole('link', { name: 'Sign in with the new password' }).click();
    await page.waitForURL(url('/sign-in'));
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/p'));
    await poll(() => page.getByRole('link', { name: 'Shop' }).count()).toBe(1);

    await page.goto(link.href);
    await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await poll(() => page.getByRole('alert').textContent()).toBe(
      'Reset token has already been used: this link cannot be used any more. Ask for a new one below.',
    );
    expect(await page.getByRole('link', { name: 'Ask for a new link' }).count()).toBe(1);
  });
});

describe('members and invitations', () => {
  const invitee = uniqueEmail('invitee');

  it('opens Members from the project nav and invites someone by e-mail; a second one is revoked and sent again', async () => {
    await page.goto(url(`/p/${projectId}`));
    const nav = page.getByRole('navigation', { name: 'Project' });
    await nav.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(url(`/p/${projectId}/members`));
    await poll(() => heading().textContent()).toBe('Members of Shop');
    await poll(() => page.locator('ul.members li').count()).toBe(1);
    expect(await page.locator('ul.members li').textContent()).toContain(owner.email);

    await page.getByLabel('E-mail address to invite', { exact: true }).fill(invitee);
    await page.getByLabel('First name', { exact: true }).fill('Ivy');
    await page.getByLabel('Environment role', { exact: true }).selectOption({ label: 'A role in production' });
    await page.getByLabel('Role', { exact: true }).selectOption('manager');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await poll(says).toContain(`Invitation sent to ${invitee}; its link works for 24 hours.`);
    const other = uniqueEmail('other');
    await page.getByLabel('E-mail address to invite', { exact: true }).fill(other);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await poll(() => page.locator('ul.invitations li[data-state="pending"]').count()).toBe(2);
    await checkScreen('members with invitations');

    await page.getByRole('button', { name: `Revoke the invitation to ${other}` }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await poll(says).toContain(`The invitation to ${other} is revoked.`);
    await poll(() => page.locator('ul.invitations li[data-state="expired"]').textContent()).toContain(other);
    clock.advance(61_000); // an invitation is mailed at most once a minute
    await page.getByRole('button', { name: `Resend the invitation to ${other}` }).click();
    await poll(says).toContain(`Sent again to ${other}: the earlier link no longer works.`);
    await poll(() => page.locator('ul.invitations li[data-state="pending"]').count()).toBe(2);
  });

  it('sees the invitation accepted in another browser: the new member is listed with the role it brought', async () => {
    const link = await mailTo(invitee, '/invitations/accept');
    const other = await (await browser.newContext()).newPage();
    await other.goto(link.href);
    await other.getByLabel('Your name', { exact: true }).fill('Ivy Invitee');
    await other.getByLabel('Choose a password (at least 8 characters)', { exact: true }).fill(PASSWORD);
    await other.getByRole('button', { name: 'Accept and create my account' }).click();
    await poll(() => other.locator('#out').textContent()).toContain('Invitation accepted');
    await other.context().close();

    await page.reload();
    const row = page.locator('ul.members li', { hasText: invitee });
    await poll(() => row.count()).toBe(1);
    expect(await row.getByLabel('Role in production', { exact: true }).inputValue()).toBe('manager');
    await poll(() => page.locator('ul.invitations li[data-state="accepted"]').textContent()).toContain(invitee);

    await row.getByLabel('Role in production', { exact: true }).selectOption('viewer');
    await row.getByRole('button', { name: `Save roles of ${invitee}` }).click();
    await poll(() => row.getByRole('status').textContent()).toBe('Roles saved.');
    await page.reload();
    await poll(() =>
      page
        .locator('ul.members li', { hasText: invitee })
        .getByLabel('Role in production', { exact: true })
        .inputValue(),
    ).toBe('viewer');
  });

  it('adds and deletes a project user (behind a confirmation)', async () => {
    await page.getByLabel('Full name', { exact: true }).fill('Olga Ops');
    await page.getByLabel('Their job title', { exact: true }).fill('On call');
    await page.getByRole('button', { name: 'Add project user' }).click();
    await poll(() => page.getByText('Olga Ops').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete project user Olga Ops' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => page.getByText('No project user yet.').count()).toBe(1);
  });

  it('custom roles: created from the catalogue (the 422 next to the permissions), edited, assigned, withdrawn and deleted', async () => {
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Roles' }).click();
    await page.waitForURL(url(`/p/${projectId}/roles`));
    await poll(() => heading().textContent()).toBe('Custom roles of Shop');
    await poll(() => page.getByText('No custom role yet.').count()).toBe(1);
    await checkScreen('custom roles (none)');

    await page.getByLabel('Role name', { exact: true }).fill('Auditor');
    await page.getByRole('button', { name: 'Create role' }).click();
    await poll(() => page.locator('#new-role-permissions-error').count()).toBe(1);
    await page.getByLabel(/Read the audit log/).check();
    await page.getByLabel(/^See services/).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await poll(() => page.getByRole('heading', { name: 'Auditor', level: 3 }).count()).toBe(1);
    expect(await page.locator('li.role').textContent()).toContain('Read the audit log; See services');

    await page.getByRole('button', { name: 'Edit role Auditor' }).click();
    await page.getByLabel('Role name', { exact: true }).first().fill('Reviewer');
    await page
      .locator('li.role')
      .getByLabel(/^See servers/)
      .check();
    await page.getByRole('button', { name: 'Save role' }).click();
    await poll(() => page.getByRole('heading', { name: 'Reviewer', level: 3 }).count()).toBe(1);
    expect(await page.locator('li.role').textContent()).toContain('See servers');

    await page.getByLabel('Give Reviewer to', { exact: true }).selectOption({ label: invitee });
    await page.getByLabel('In', { exact: true }).selectOption({ label: 'production' });
    await page.getByRole('button', { name: 'Assign' }).click();
    await poll(() => page.locator('li.role ul.plain').textContent()).toBe(`${invitee} in production Withdraw`);
    await checkScreen('custom roles with a holder');

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Members' }).click();
    await poll(() => page.locator('ul.members li', { hasText: invitee }).textContent()).toContain(
      'Custom roles: Reviewer',
    );
    await page.goBack();
    await poll(() => heading().textContent()).toBe('Custom roles of Shop');
    await settled(page);
    await page.getByRole('button', { name: `Withdraw Reviewer from ${invitee}` }).click();
    await poll(() => page.getByText('Nobody yet.').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete role Reviewer' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => page.getByText('No custom role yet.').count()).toBe(1);
  });

  it('removes a member from the project behind a confirmation: their access ends at once; the plan owner cannot leave', async () => {
    const login = await api.post('/auth/login', { email: invitee, password: PASSWORD });
    expect(login.status, login.text).toBe(200);
    const theirs = () => api.get(`/projects/members/${projectId}`, { token: login.body.access_token });
    expect((await theirs()).status).toBe(200);

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(url(`/p/${projectId}/members`));
    await poll(() => page.locator('ul.members li').count()).toBe(2);
    const mine = page.locator('ul.members li', { hasText: owner.email });
    await mine.getByRole('button', { name: 'Leave project' }).click();
    await mine.getByRole('button', { name: 'Yes, leave project' }).click();
    await poll(() => mine.getByRole('alert').textContent()).toBe(
      'The owner whose plan this project uses cannot leave it or be removed. Delete the project instead.',
    );

    const row = page.locator('ul.members li', { hasText: invitee });
    await row.getByRole('button', { name: `Remove from project ${invitee}` }).click();
    await poll(() => row.getByRole('group').getAttribute('aria-label')).toBe(
      `Remove ${invitee} from Shop? Their access ends at once, with their environment and custom roles; what they created stays.`,
    );
    await checkScreen('members, confirming a removal');
    await row.getByRole('button', { name: 'Yes, remove from project' }).click();
    await poll(says).toContain(`${invitee} is no longer a member of Shop.`);
    await poll(() => page.locator('ul.members li').count()).toBe(1);
    await checkScreen('members after a removal');
    expect((await theirs()).status).toBe(404);
  });

  it('lets a member leave from their own row: they land on their projects, without this one', async () => {
    const ownerLogin = await api.post('/auth/login', { email: owner.email, password: NEW_PASSWORD });
    expect(ownerLogin.status, ownerLogin.text).toBe(200);
    const envs = await api.get(`/environments?project_id=${projectId}`, { token: ownerLogin.body.access_token });
    const leaver = await signUp(api, uniqueEmail('leaver'));
    expect(
      (
        await api.post(
          `/environments/${envs.body[0].id}/roles`,
          { user_id: leaver.id, role: 'viewer' },
          { token: ownerLogin.body.access_token },
        )
      ).status,
    ).toBe(201);

    const theirs = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await theirs.goto(url(`/sign-in?next=${encodeURIComponent(`/p/${projectId}/members`)}`));
    await theirs.getByLabel('Email', { exact: true }).fill(leaver.email);
    await theirs.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await theirs.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => theirs.getByRole('heading', { level: 1 }).textContent()).toBe('Members of Shop');
    const mine = theirs.locator('ul.members li', { hasText: leaver.email });
    await poll(() => mine.getByRole('button', { name: 'Leave project' }).count()).toBe(1);
    expect(await theirs.getByRole('button', { name: /^Remove from project/ }).count()).toBe(0); // only owners remove others
    await mine.getByRole('button', { name: 'Leave project' }).click();
    await mine.getByRole('button', { name: 'Yes, leave project' }).click();
    await theirs.waitForURL(url('/p'));
    // The heading comes before the list of projects (its own load): wait for the list, then look for Shop in it.
    await poll(() => theirs.getByText('No project yet').count()).toBe(1);
    expect(await theirs.getByRole('link', { name: 'Shop' }).count()).toBe(0);
    await theirs.context().close();
    expect(
      (await api.get(`/projects/members/${projectId}`, { token: ownerLogin.body.access_token })).body.map(
        (m: { email: string }) => m.email,
      ),
    ).toEqual([owner.email]);
    // The owner's sign-in above ends here: the sessions screen below counts the owner's sessions.
    expect(
      (
        await api.post(
          '/auth/logout',
          { refresh_token: ownerLogin.body.refresh_token },
          { token: ownerLogin.body.access_token },
        )
      ).status,
    ).toBe(204);
  });
});

describe('the account', () => {
  let secret: string;

  it('opens from the header; the profile is saved and the header shows the new name', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL(url('/account'));
    await poll(() => heading().textContent()).toBe('Your account');
    await checkScreen('account');
    await page.getByLabel('Name', { exact: true }).fill('Olivia Owner');
    await page.getByLabel('Job title', { exact: true }).fill('Platform lead');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await poll(() => page.locator('header .who').textContent()).toBe('Olivia Owner');
    await page.reload();
    await poll(() => page.getByLabel('Job title', { exact: true }).inputValue()).toBe('Platform lead');
  });

  it('adds an authenticator: the QR code is an image, the key is typed into an app, its code confirms it', async () => {
    await page.getByRole('button', { name: 'Add an authenticator' }).click();
    const qr = page.getByRole('img', { name: /QR code for Infrastructure Catalog/ });
    await poll(() => qr.count()).toBe(1);
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // The image decodes after it is added, even from a data: address.
    await poll(() => qr.evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true);
    secret = (await page.locator('#totp-secret').textContent())!;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await checkScreen('adding an authenticator');
    await page.getByLabel('Name of this authenticator', { exact: true }).fill('Phone');
    await page.getByLabel('Code from the app', { exact: true }).fill('000000');
    await page.getByRole('button', { name: 'Confirm and add' }).click();
    await poll(() => page.locator('#f-device-code-error').textContent()).toMatch(/^That code was not accepted/);
    await page.getByLabel('Code from the app', { exact: true }).fill(await totpCode(secret, clock.now()));
    await page.getByRole('button', { name: 'Confirm and add' }).click();
    await poll(() => page.getByText(/^Phone is added: signing in now asks for its code/).count()).toBe(1);
    await poll(() => page.locator('#authenticators ul.cards li').textContent()).toContain('Phone');
    const login = await api.post('/auth/login', { email: owner.email, password: NEW_PASSWORD });
    expect(login.body.detail).toBe('TOTP code required');
  });

  it('generates recovery codes once the password and a code prove who asks; they are shown once, to copy or download', async () => {
    const part = page.locator('#recovery-codes');
    await part.getByLabel('Current password', { exact: true }).fill(NEW_PASSWORD);
    await part.getByLabel('Authenticator or recovery code', { exact: true }).fill('000000');
    await part.getByRole('button', { name: 'Generate new recovery codes' }).click();
    await poll(() => part.locator('#f-recovery-totp-code-error').textContent()).toMatch(/^That code was not accepted/);
    clock.advance(30_000);
    await part.getByLabel('Authenticator or recovery code', { exact: true }).fill(await totpCode(secret, clock.now()));
    await part.getByRole('button', { name: 'Generate new recovery codes' }).click();
    const codes = part.locator('ol.code-list code');
    await poll(() => codes.count()).toBe(10);
    await checkScreen('new recovery codes');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      part.getByRole('button', { name: 'Download codes' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe('recovery-codes.txt');
    const first = (await codes.first().textContent())!;
    await part.getByRole('button', { name: 'I have saved them' }).click();
    await poll(() => codes.count()).toBe(0);
    await poll(() => part.textContent()).toContain('10 of 10 recovery codes unused.');
    const login = await api.post('/auth/login', { email: owner.email, password: NEW_PASSWORD, totp_code: first });
    expect(login.status).toBe(200);
  });

  it('lists the sessions and revokes another one, whose refresh token then stops working', async () => {
    const elsewhere = await postFrom(
      '127.0.0.2',
      ref.stack.url,
      '/auth/login',
      {
        email: owner.email,
        password: NEW_PASSWORD,
        totp_code: await totpCode(secret, (clock.advance(90_000), clock.now())),
      },
      { 'user-agent': 'Tablet Browser' },
    );
    expect(elsewhere.status).toBe(200);
    await page.reload();
    const sessions = page.locator('ul.sessions li');
    await poll(() => sessions.count()).toBe(3); // this browser, the recovery-code sign-in, the tablet
    expect(await page.locator('ul.sessions li', { hasText: 'this browser' }).count()).toBe(1);
    await checkScreen('sessions');
    await page.getByRole('button', { name: /^Revoke session on Tablet Browser/ }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await poll(() => sessions.count()).toBe(2);
    expect(await page.locator('ul.sessions').textContent()).not.toContain('Tablet Browser');
    const refresh = await api.post('/auth/token/refresh', { refresh_token: elsewhere.body.refresh_token });
    expect(refresh.status).toBe(401);
  });

  it('changes the e-mail address through the link mailed to the new one', async () => {
    const part = page.locator('#email');
    const next = uniqueEmail('moved');
    await part.getByLabel('New e-mail address', { exact: true }).fill(next);
    await part.getByLabel('Current password', { exact: true }).fill(NEW_PASSWORD);
    clock.advance(150_000); // steps apart from the codes the tests before used (each code works once)
    await part.getByLabel('Authenticator or recovery code', { exact: true }).fill(await totpCode(secret, clock.now()));
    await part.getByRole('button', { name: 'Change e-mail address' }).click();
    await poll(says).toContain(`We sent a link to ${next}: your address changes when you open it (within 60 minutes).`);
    const link = await mailTo(next, '/confirm-email');
    await page.goto(link.href);
    await poll(() => heading().textContent()).toBe('Confirm your new e-mail address');
    await checkScreen('confirm e-mail');
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await poll(() => status().textContent()).toMatch(/^Your account's e-mail address is changed/);
    await page.getByRole('link', { name: 'Back to your account' }).click();
    await poll(() => page.locator('#email strong').textContent()).toBe(next);
    owner.email = next;
  });

  it('ran every page without a CSP violation, a console error or an uncaught exception (but the refusals it provoked)', () => {
    // The browser logs every 4xx as a console error: the used reset link (400), the wrong codes (400, 401), the role without permissions (422).
    expect(problems.filter((p) => !/status of (400|401|422)/.test(p))).toEqual([]);
  });
});
