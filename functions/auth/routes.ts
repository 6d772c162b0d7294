import { z } from 'zod';
import { route, ok, created, noContent } from '../../shared/http/route';
import { accountOut, email, text, tokenPair } from '../../shared/http/schemas';
import { ACCESS_COOKIE, REFRESH_COOKIE, clearCookie } from '../../shared/http/cookies';
import { unauthorized } from '../../shared/http/errors';
import { refreshToken } from '../../shared/auth/tokens';
import { toAccountOut, updateProfile } from '../../shared/domain/accounts';
import { register } from '../../shared/domain/registration';
import { login } from '../../shared/domain/login';
import { INVALID_REFRESH, refreshSession, revokeSession } from '../../shared/domain/sessions';

const optionalRefresh = z.object({ refresh_token: z.string().max(512).optional() }).optional();

export const authRoutes = [
  route({
    method: 'POST', path: '/auth/register', auth: 'public', summary: 'Create an account (customer, Free plan)',
    body: z.object({ email, password: z.string().min(8).max(1024), name: text(200), phone: text(50) }),
    responses: { 201: accountOut },
    handler: async ({ body }, ctx) => created(toAccountOut(await register(body, ctx))),
  }),
  route({
    method: 'POST', path: '/auth/login', auth: 'public', summary: 'Sign in with e-mail and password (and a second factor when enrolled)',
    body: z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(1024), totp_code: z.string().max(64).nullish() }),
    responses: { 200: tokenPair },
    handler: async (req, ctx) => login(req.body, req, ctx),
  }),
  route({
    method: 'POST', path: '/auth/token/refresh', auth: 'public', summary: 'Exchange a refresh token (body or cookie) for a new pair',
    body: optionalRefresh,
    responses: { 200: tokenPair },
    handler: async (req, ctx) => {
      const token = req.body?.refresh_token || req.cookies[REFRESH_COOKIE];
      if (!token) throw unauthorized(INVALID_REFRESH);
      return refreshSession(token, req, ctx);
    },
  }),
  route({
    method: 'POST', path: '/auth/logout', auth: 'user', summary: 'End this session: revoke the refresh token, clear both cookies',
    body: optionalRefresh,
    responses: { 204: null },
    handler: async (req) => {
      const { account, session } = req.principal;
      await revokeSession(account.id, session.id);
      const other = refreshToken.parse(req.body?.refresh_token || req.cookies[REFRESH_COOKIE] || '');
      if (other && other.userId === account.id && other.sessionId !== session.id) await revokeSession(account.id, other.sessionId);
      return noContent({ cookies: [clearCookie(ACCESS_COOKIE), clearCookie(REFRESH_COOKIE)] });
    },
  }),
  route({
    method: 'GET', path: '/auth/me', auth: 'user', summary: 'The signed-in account',
    responses: { 200: accountOut },
    handler: async ({ principal }) => ok(toAccountOut(principal.account)),
  }),
  route({
    method: 'PATCH', path: '/auth/me', auth: 'user', summary: 'Update profile fields',
    body: z.object({
      email: email.optional(), name: text(200), phone: text(50), preferred_language: text(35), navigation_mode: text(50),
      job_title: text(200), timezone: text(64), table_density: text(50),
    }),
    responses: { 200: accountOut },
    handler: async ({ principal, body }, ctx) => {
      const { email: newEmail, ...rest } = body;
      const patch = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      return ok(toAccountOut(await updateProfile(principal.account, { ...patch, ...(newEmail ? { email: newEmail } : {}) }, ctx)));
    },
  }),
];
