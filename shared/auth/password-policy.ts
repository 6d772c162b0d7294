import type { Config } from '#shared/config';

/** The configurable password policy (beyond the schema's 8-character minimum); a problem is a 400. */
export function passwordPolicyProblem(password: string, c: Config): string | undefined {
  if (password.length < c.PASSWORD_MIN_LENGTH)
    return `Password must be at least ${c.PASSWORD_MIN_LENGTH} characters long`;
  if (c.PASSWORD_REQUIRE_MIXED && !(/[a-z]/.test(password) && /[A-Z]/.test(password) && /\d/.test(password))) {
    return 'Password must contain upper-case and lower-case letters and a digit';
  }
  return undefined;
}
