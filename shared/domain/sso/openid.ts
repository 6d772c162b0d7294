import type { Configuration } from 'openid-client';
import type { Config } from '#shared/config';
import { guardedFetch } from './outbound.ts';

/**
 * openid-client, imported at the first SSO request only (the auth function's cold start does not
 * pay for it), and a client configuration for a connection: discovery through the guarded fetch
 * (so every later call, JWKS and token endpoint included, goes through it too), the ID token's
 * signature checked against the IdP's JWKS (`enableNonRepudiationChecks`: openid-client 6 does not
 * check it otherwise for a token from the token endpoint), plain http only where the address rule
 * allowed it (SSO_ALLOWED_ADDRESSES).
 */
let lib: Promise<typeof import('openid-client')> | undefined;
export const openidClient = () => (lib ??= import('openid-client'));

export async function clientFor(
  issuer: string,
  clientId: string,
  clientSecret: string,
  config: Config,
): Promise<Configuration> {
  const oidc = await openidClient();
  const execute = [oidc.enableNonRepudiationChecks];
  // the guard refuses http to anything not on SSO_ALLOWED_ADDRESSES, so the library's own https-only rule can step aside
  if (new URL(issuer).protocol === 'http:') execute.push(oidc.allowInsecureRequests);
  return oidc.discovery(new URL(issuer), clientId, clientSecret, oidc.ClientSecretBasic(clientSecret), {
    [oidc.customFetch]: guardedFetch(config) as never,
    execute,
  });
}
