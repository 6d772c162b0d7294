import * as z from 'zod';
import { route, ok, noContent } from '#http/route';
import { email, tokenPair } from '#http/schemas';
import { clearCookie, setCookie, signedIn } from '#http/cookies';
import {
  exchangeLoginCode,
  finishSsoSignIn,
  listLinkedIdentities,
  SSO_BINDING_COOKIE,
  startSsoLink,
  startSsoSignIn,
  unlinkIdentity,
} from '#domain/sso';
import { pendingInvitationGate } from '#domain/tenancy';
import type { ClientMeta } from '#domain/identity';

const client = (req: ClientMeta): ClientMeta => ({ sourceIp: req.sourceIp, userAgent: req.userAgent });
const returnTo = () => z.string().min(1).max(2000);
const redirect = (location: string, cookies: string[] = []) => ({
  status: 302,
  headers: { location, 'cache-control': 'no-store' },
  cookies,
});

/** Single sign-on: the OpenID Connect flow through a project's identity provider. openid-client is imported at the first call only. */
export const ssoSignInRoutes = [
  route({
    method: 'GET',
    path: '/auth/sso/start',
    auth: 'public',
    summary:
      "Start single sign-on: 302 to the identity provider of the address's verified domain (authorization code, PKCE, state, nonce); return_to must be this site or a loopback address",
    query: () => z.object({ email: email(), return_to: returnTo() }),
    responses: () => ({ 302: null }),
    refusals: [400, 404],
    handler: async ({ query }, ctx) => {
      const { location, binding } = await startSsoSignIn(ctx, query);
      return redirect(location, [setCookie(SSO_BINDING_COOKIE, binding, 600)]);
    },
  }),
  route({
    method: 'GET',
    path: '/auth/sso/callback',
    auth: 'public',
    summary:
      'The identity provider returns here: the state is checked (single use, 10 minutes), the code exchanged and the ID token checked; 302 to return_to with a one-time login_code',
    query: () => z.looseObject({ state: z.string().max(600).optional(), code: z.string().max(4000).optional() }),
    responses: () => ({ 302: null }),
    refusals: [400, 401, 403, 409],
    handler: async ({ query, cookies }, ctx) => {
      const params = Object.fromEntries(
        Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      return redirect(await finishSsoSignIn(ctx, { query: params, binding: cookies[SSO_BINDING_COOKIE] }), [
        clearCookie(SSO_BINDING_COOKIE),
      ]);
    },
  }),
  route({
    method: 'POST',
    path: '/auth/sso/token',
    auth: 'public',
    summary:
      'Exchange a login_code (60 s, single use) for what POST /auth/login answers, or the refusal the single sign-on reached',
    body: () => z.object({ login_code: z.string().min(1).max(200) }),
    responses: () => ({ 200: tokenPair() }),
    refusals: [400, 401, 403, 409],
    handler: async (req, ctx) =>
      signedIn(
        await exchangeLoginCode(ctx, { login_code: req.body.login_code, client: client(req) }, [pendingInvitationGate]),
        ctx.config,
      ),
  }),
  route({
    method: 'POST',
    path: '/auth/sso/link',
    auth: 'user',
    summary:
      "Link single sign-on to your account: with the current password (and a code where an authenticator is enrolled), answers the identity provider's address; its callback links the identity to this account only",
    body: () =>
      z.object({
        current_password: z.string().max(1024).nullish(),
        totp_code: z.string().max(64).nullish(),
        email: email().nullish(),
        return_to: returnTo(),
      }),
    responses: () => ({ 200: z.object({ authorization_url: z.string() }) }),
    refusals: [400, 404, 423, 429],
    handler: async (req, ctx) =>
      ok({ authorization_url: await startSsoLink(ctx, { ...req.body, client: client(req) }) }),
  }),
  route({
    method: 'GET',
    path: '/auth/me/sso/identities',
    auth: 'user',
    summary: 'The identities (issuer, subject) linked to your account for single sign-on',
    responses: () => ({
      200: z.array(
        z.object({ id: z.string(), issuer: z.string(), sub: z.string(), email: z.string(), linked_at: z.string() }),
      ),
    }),
    handler: async (_req, ctx) => ok(await listLinkedIdentities(ctx)),
  }),
  route({
    method: 'DELETE',
    path: '/auth/me/sso/identities/{identity_id}',
    auth: 'user',
    summary: 'Unlink an identity from your account (single sign-on through it then no longer enters this account)',
    params: () => z.object({ identity_id: z.string().max(64) }),
    responses: () => ({ 204: null }),
    refusals: [404],
    handler: async ({ params }, ctx) => {
      await unlinkIdentity(ctx, params);
      return noContent();
    },
  }),
];
