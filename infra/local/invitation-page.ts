import type { IncomingMessage, ServerResponse } from 'node:http';
import { htmlPage } from './page';

/** Where invitation mails link to (`<APP_BASE_URL>/invitations/accept?token=…`, shared/domain/tenancy/invitation-mail.ts). */
export const INVITATION_PAGE = '/invitations/accept';

/**
 * The page an invitation link opens, served by the local server until the dashboard serves it: a new
 * account sets its password here; an existing one signs in first. Both call the API's own routes
 * (POST /auth/login, POST /invites/accept/by-token) from the page, so the cookies they set sign the
 * browser in. The token is read from the address by the script, never written into the HTML.
 */
const BODY = `<h1>Join a project</h1>
<p>You were invited to a project of Infrastructure Catalog.</p>
<p id="out" role="status"></p>
<form id="create"><fieldset><legend>New here? Create your account</legend>
<label>Your name <input name="name" autocomplete="name" maxlength="200"></label>
<label>Choose a password (at least 8 characters) <input name="password" type="password" autocomplete="new-password" required minlength="8"></label>
<button type="submit">Accept and create my account</button></fieldset></form>
<form id="existing"><fieldset><legend>Already have an account? Sign in to accept</legend>
<label>E-mail address (the invited one) <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<label>Authenticator or recovery code, if you use one <input name="totp_code" autocomplete="one-time-code"></label>
<button type="submit">Sign in and accept</button></fieldset></form>`;

const SCRIPT = `(() => {
const token = new URLSearchParams(location.search).get('token');
const out = document.getElementById('out');
const say = (html, ok) => { out.innerHTML = html; out.className = ok ? 'ok' : 'err'; };
const text = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
const problem = (r) => {
  const d = r.data && r.data.detail;
  if (Array.isArray(d)) return d.map((p) => text((p.loc || []).slice(1).join('.') + ': ' + p.msg)).join('<br>');
  if (/^Invitation (not found|expired)/.test(d)) return text(d + ': the link may have been replaced by a newer one or revoked. Ask whoever invited you to send the invitation again.');
  return text(d || 'The service answered ' + r.status + '. Try again, or ask for a new invitation.');
};
const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
  let data = null;
  try { data = await res.json(); } catch { /* no body */ }
  return { ok: res.ok, status: res.status, data };
};
const accepted = () => say('Invitation accepted: you are a member of the project and signed in here. '
  + 'From a script, sign in with <code>POST /auth/login</code> (your address and password); <code>GET /projects</code> lists the project.', true);
if (!token) say('This link has no invitation token. Open the link from the invitation e-mail exactly as it is.', false);
const values = (form) => Object.fromEntries([...new FormData(form)].filter(([, v]) => v !== ''));
document.getElementById('create').addEventListener('submit', async (e) => {
  e.preventDefault();
  const { name, password } = values(e.target);
  const r = await post('/invites/accept/by-token', { token, password, name: name || null });
  r.ok ? accepted() : say(problem(r), false);
});
document.getElementById('existing').addEventListener('submit', async (e) => {
  e.preventDefault();
  const login = await post('/auth/login', values(e.target));
  if (login.status === 401 && /accept your invitation/.test(login.data && login.data.detail)) {
    return say('This account has never signed in: accept with the first form, choosing its password there.', false);
  }
  if (!login.ok) return say(problem(login), false);
  const r = await post('/invites/accept/by-token', { token });
  r.ok ? accepted() : say(problem(r), false);
});
})();`;

/** Answers GET /invitations/accept; false for any other request. */
export function invitationPage(req: IncomingMessage, res: ServerResponse): boolean {
  if (new URL(req.url ?? '/', 'http://local').pathname !== INVITATION_PAGE || req.method !== 'GET') return false;
  return htmlPage(res, 200, 'Accept your invitation', BODY, SCRIPT);
}
