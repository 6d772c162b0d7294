import * as z from 'zod';
import { route, ok, noContent } from '#http/route';
import {
  enrolAuthenticator,
  listAuthenticators,
  provisionAuthenticator,
  removeAuthenticator,
  toDeviceOut,
  recoveryCodeStatus,
  regenerateRecoveryCodes,
  deleteLegacyTotp,
} from '#domain/identity';
import { client, proof } from './inputs.ts';

/** The second factor: authenticators (provision, enrol, list, remove), recovery codes, and the legacy single-secret delete. */
export const authenticatorRoutes = [
  route({
    method: 'POST',
    path: '/auth/totp/provision',
    auth: 'user',
    summary: 'A new authenticator secret with its otpauth URL and QR code; nothing is stored',
    responses: () => ({
      200: z.object({
        secret: z.string(),
        otpauth_url: z.string(),
        issuer: z.string(),
        account_name: z.string(),
        qrcode_data_url: z.string(),
      }),
    }),
    handler: async (_req, ctx) => ok(await provisionAuthenticator(ctx)),
  }),
  route({
    method: 'POST',
    path: '/auth/totp/verify',
    auth: 'user',
    summary: 'Store a named authenticator once a code from its secret is valid (at most three)',
    // name is required by SPEC but its absence is a 400, so the schema lets it through to the domain
    body: () =>
      z.object({ secret: z.string().max(256), code: z.string().max(64), name: z.string().max(100).nullish() }),
    responses: () => ({ 204: null }),
    refusals: [400],
    handler: async ({ body }, ctx) => {
      await enrolAuthenticator(ctx, body);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/auth/totp/devices',
    auth: 'user',
    summary: "The account's authenticators (secrets are never returned)",
    responses: () => ({
      200: z.array(
        z.object({ id: z.uuid(), name: z.string(), created_at: z.string(), last_used_at: z.string().nullable() }),
      ),
    }),
    handler: async (_req, ctx) => ok((await listAuthenticators(ctx)).map(toDeviceOut)),
  }),
  route({
    method: 'DELETE',
    path: '/auth/totp/devices/{device_id}',
    auth: 'user',
    summary: 'Remove an authenticator (needs the current password and a code)',
    params: () => z.object({ device_id: z.uuid() }),
    body: () => z.object(proof()).optional(),
    responses: () => ({ 204: null }),
    refusals: [404, 423, 429],
    handler: async (req, ctx) => {
      await removeAuthenticator(ctx, { ...req.body, ...req.params, client: client(req) });
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/auth/totp/recovery/regenerate',
    auth: 'user',
    summary:
      'Ten new single-use recovery codes, replacing the old set; shown this once (needs the current password and a code)',
    body: () => z.object(proof()).optional(),
    responses: () => ({ 200: z.object({ codes: z.array(z.string()) }) }),
    refusals: [423, 429],
    handler: async (req, ctx) =>
      ok({ codes: await regenerateRecoveryCodes(ctx, { ...req.body, client: client(req) }) }),
  }),
  route({
    method: 'GET',
    path: '/auth/totp/recovery',
    auth: 'user',
    summary: 'How many recovery codes the current set has, and how many are unused',
    responses: () => ({ 200: z.object({ total: z.int(), unused: z.int() }) }),
    handler: async (_req, ctx) => ok(await recoveryCodeStatus(ctx)),
  }),
  route({
    method: 'POST',
    path: '/auth/totp/delete',
    auth: 'user',
    summary: 'Legacy: clear a single-secret TOTP (this service has none; named authenticators stay)',
    body: () => z.object({ password: z.string().min(1).max(1024) }),
    responses: () => ({ 204: null }),
    refusals: [423, 429],
    handler: async (req, ctx) => {
      await deleteLegacyTotp(ctx, { ...req.body, client: client(req) });
      return noContent();
    },
  }),
];
