import { ApiError } from '../api';
import { message } from '../ui';

/**
 * Single sign-on's refusals as the dashboard shows them: the API's sentence, then what to do next
 * (the API's details say what happened; a person at the sign-in page also needs the way on).
 */
const NEXT: Record<string, string> = {
  'No single sign-on for this e-mail domain':
    'Check the address for typos, or sign in with your password. Your project’s owner sets single sign-on up on the project’s Single sign-on page.',
  'This e-mail domain is not verified for this single sign-on connection':
    'Ask your project’s owner to add and verify your address’s domain on the project’s Single sign-on page, or sign in with your password.',
  'The identity provider has not verified this e-mail address':
    'Verify your e-mail address at your identity provider (or ask its administrator to), then sign in with single sign-on again.',
  "Single sign-on failed: the identity provider's answer was refused":
    'Try again. If it fails again, ask your project’s owner to check the connection (issuer, client ID and secret) on the project’s Single sign-on page.',
  'Invalid or expired login code':
    'Sign in with single sign-on again: the code from your identity provider is good once, for a minute.',
  'The single sign-on connection no longer exists':
    'Your project no longer signs in through single sign-on: sign in with your password.',
  "The identity's e-mail address is not this account's":
    'At your identity provider, sign in as this account’s own address, or change this account’s address first.',
  'This identity is already linked to another account':
    'Sign in to that other account, or unlink the identity there (Account, Single sign-on), then try again.',
};

/** The refusal's sentence followed by the next step, when there is one to give. */
export function ssoMessage(err: unknown): string {
  const said = message(err);
  const next = err instanceof ApiError ? NEXT[err.detail] : undefined;
  return next ? `${said}. ${next}` : said;
}

/**
 * Where GET /auth/sso/start would send the browser: asked first without following (a refusal is a
 * problem document the page can show, not a page of JSON); an answer that redirects is then opened.
 * Answers the refusal's message, or undefined once the browser is on its way.
 */
export async function openSsoStart(url: string): Promise<string | undefined> {
  const res = await fetch(url, { redirect: 'manual', credentials: 'same-origin' });
  if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
    location.assign(url);
    return undefined;
  }
  const body = (await res.json().catch(() => undefined)) as { detail?: unknown } | undefined;
  if (res.status === 422) return 'Enter your work e-mail address, such as you@your-company.example.';
  const detail = typeof body?.detail === 'string' ? body.detail : `The service answered ${res.status}`;
  const next = NEXT[detail];
  return next ? `${detail}. ${next}` : detail;
}
