import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { accountOut, email, text, tokenPair } from '#http/schemas';
import { ACCESS_COOKIE, REFRESH_COOKIE, clearCookie, signedIn } from '#http/cookies';
import {
  currentAccount,
  toAccountOut,
  updateProfile,
  register,
  login,
  listSessions,
  logout,
  refreshSession,
  revokeSession,
  revokeOtherSessions,
  confirmPasswordReset,
  requestPasswordReset,
  confirmEmailChange,
  listOwnSecurityLog,
  securityLogEntryOut,
} from '#domain/identity';
import { nextCursorHeaders, pageQuery } from '#http/paging';
import { startingSubscription } from '#domain/billing';
import { pendingInvitationGate } from '#domain/tenancy';
import { authenticatorRoutes } from './authenticator-routes.ts';
import { capabilityRoutes } from './capabilities.ts';
import { client, proof, totpCode } from './inputs.ts';
import { ssoSignInRoutes } from './sso-routes.ts';
import { optionalCaller, presentedToken } from '#auth/authenticate';
import { lazySchema } from '#shared/lazy-schema';

const optionalRefresh = lazySchema(() => z.object({ refresh_token: z.string().max(512).optional() }).optional());
const status = lazySchema(() => z.object({ status: z.literal('ok') }));

/** A refresh token from the body, else from its cookie. */
const presentedRefresh = (req: { body?: { refresh_token?: string }; cookies: Record<string, string> }) =>
  req.body?.refresh_token || req.cookies[REFRESH_COOKIE];

export const authRoutes = [
  route({
    method: 'POST',
    path: '/auth/register',
    auth: 'public',
    summary: 'Create an account (customer, Free plan)',
    body: () => z.object({ email: email(), password: z.string().min(8).max(1024), name: text(200), phone: text(50) }),
    responses: () => ({ 201: accountOut() }),
    refusals: [400, 403],
    handler: async ({ body }, ctx) => created(toAccountOut(await register(ctx, body, startingSubscription))),
  }),
  route({
    method: 'POST',
    path: '/auth/login',
    auth: 'public',
    summary: 'Sign in with e-mail and password (and a second factor when enrolled)',
    body: () => z.object({ email: email(), password: z.string().min(1).max(1024), totp_code: totpCode() }),
    responses: () => ({ 200: tokenPair() }),
    refusals: [401, 423, 429],
    handler: async (req, ctx) =>
      signedIn(await login(ctx, { ...req.body, client: client(req) }, [pendingInvitationGate]), ctx.config),
  }),
  route({
    method: 'POST',
    path: '/auth/token/refresh',
    auth: 'public',
    summary: 'Exchange a refresh token (body or cookie) for a new pair',
    body: optionalRefresh,
    responses: () => ({ 200: tokenPair() }),
    refusals: [401],
    handler: async (req, ctx) =>
      signedIn(await refreshSession(ctx, { refresh_token: presentedRefresh(req), client: client(req) }), ctx.config),
  }),
  route({
    // public: the access token (when valid) identifies the session, else the refresh token alone must prove it (see logout)
    method: 'POST',
    path: '/auth/logout',
    auth: 'public',
    summary:
      'End this session (access token, or the refresh token alone once the access token has expired); clear both cookies',
    body: optionalRefresh,
    responses: () => ({ 204: null }),
    refusals: [401],
    handler: async (req, ctx) => {
      const refresh_token = presentedRefresh(req);
      ctx.actor = await optionalCaller(presentedToken(req.headers.authorization, req.cookies[ACCESS_COOKIE]), ctx, {
        refusedIsAnonymous: Boolean(refresh_token),
      });
      await logout(ctx, { refresh_token });
      return noContent({ cookies: [clearCookie(ACCESS_COOKIE), clearCookie(REFRESH_COOKIE)] });
    },
  }),
  route({
    method: 'GET',
    path: '/auth/me',
    auth: 'user',
    summary: 'The signed-in account',
    responses: () => ({ 200: accountOut() }),
    handler: async (_req, ctx) => ok(toAccountOut(currentAccount(ctx))),
  }),
  route({
    method: 'GET',
    path: '/auth/me/security-log',
    auth: 'user',
    summary:
      "The account's security log, newest first: sign-ins and refusals (address, device), lockouts, authenticators, recovery codes, password reset, e-mail change, sessions ended; the next page's cursor in X-Next-Cursor",
    query: pageQuery,
    responses: () => ({ 200: z.array(securityLogEntryOut()) }),
    handler: async ({ query }, ctx) => {
      const { entries, next } = await listOwnSecurityLog(ctx, query);
      return ok(entries, { headers: nextCursorHeaders(next) });
    },
  }),
  route({
    method: 'PATCH',
    path: '/auth/me',
    auth: 'user',
    summary:
      'Update profile fields; a new e-mail needs the current password (and a code) and takes effect once the link mailed to it is opened',
    body: () =>
      z.object({
        email: email().optional(),
        name: text(200),
        phone: text(50),
        preferred_language: text(35),
        navigation_mode: text(50),
        job_title: text(200),
        timezone: text(64),
        table_density: text(50),
        ...proof(),
      }),
    responses: () => ({ 200: accountOut() }),
    refusals: [400, 423, 429],
    handler: async (req, ctx) => ok(toAccountOut(await updateProfile(ctx, { ...req.body, client: client(req) }))),
  }),
  route({
    method: 'POST',
    path: '/auth/email/confirm',
    auth: 'public',
    summary: 'Confirm a new e-mail address with the token mailed to it; the account then signs in with it',
    // an empty token is a 400 (like the password reset's), so it is not constrained here
    body: () => z.object({ token: z.string().max(512) }),
    responses: () => ({ 200: status() }),
    refusals: [400, 404],
    handler: async ({ body }, ctx) => {
      await confirmEmailChange(ctx, body);
      return ok({ status: 'ok' });
    },
  }),
  route({
    method: 'GET',
    path: '/auth/sessions',
    auth: 'user',
    summary: "The account's signed-in sessions, the caller's marked current",
    responses: () => ({
      200: z.array(
        z.object({
          id: z.uuid(),
          device: z.string(),
          ip: z.string(),
          created_at: z.string(),
          last_seen_at: z.string(),
          current: z.boolean(),
        }),
      ),
    }),
    handler: async (_req, ctx) => ok(await listSessions(ctx)),
  }),
  route({
    method: 'DELETE',
    path: '/auth/sessions/{session_id}',
    auth: 'user',
    summary: 'Revoke one of your sessions (its tokens stop working at once)',
    params: () => z.object({ session_id: z.uuid() }),
    responses: () => ({ 204: null }),
    refusals: [404],
    handler: async ({ params }, ctx) => {
      await revokeSession(ctx, params);
      return noContent();
    },
  }),
  route({
    method: 'DELETE',
    path: '/auth/sessions',
    auth: 'user',
    summary: 'Revoke every session except the calling one',
    responses: () => ({ 200: z.object({ revoked: z.int() }) }),
    handler: async (_req, ctx) => ok({ revoked: await revokeOtherSessions(ctx) }),
  }),
  ...authenticatorRoutes,
  route({
    method: 'POST',
    path: '/auth/password/reset',
    auth: 'public',
    summary: 'Mail a reset link (the answer is the same whether or not the address has an account)',
    body: () => z.object({ email: email(), totp_code: totpCode() }),
    responses: () => ({ 200: status() }),
    // every answer, 422 and 429 included, takes the same minimum time: no timing oracle on the address
    minDurationMs: (config) => config.PASSWORD_RESET_MIN_DURATION_MS,
    refusals: [429],
    handler: async (req, ctx) => {
      await requestPasswordReset(ctx, { ...req.body, client: client(req) });
      return ok({ status: 'ok' });
    },
  }),
  route({
    method: 'POST',
    path: '/auth/password/reset/confirm',
    auth: 'public',
    summary: 'Set a new password with a reset token; every session is revoked',
    // an empty token is a 400 and the password policy (length included) answers 400, so neither is constrained here
    body: () => z.object({ token: z.string().max(512), new_password: z.string().max(1024) }),
    responses: () => ({ 200: status() }),
    refusals: [400, 404],
    handler: async ({ body }, ctx) => {
      await confirmPasswordReset(ctx, body);
      return ok({ status: 'ok' });
    },
  }),
  ...capabilityRoutes,
  ...ssoSignInRoutes,
];
