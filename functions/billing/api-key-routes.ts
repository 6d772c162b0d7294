import * as z from 'zod';
import { route, ok, created, noContent, type Route } from '#http/route';
import { uuid } from '#http/schemas';
import {
  apiKeyCreatedOut,
  apiKeyOut,
  apiKeyView,
  createApiKey,
  createApiKeyBody,
  exchangeApiKey,
  exchangeApiKeyBody,
  keyTokenOut,
  listApiKeys,
  revokeApiKey,
  type ApiKeySet,
} from '#domain/billing';
import { unreachableProjects } from '#domain/tenancy';

/** The same three routes for each of the account's key sets. */
function keySetRoutes(path: string, keySet: ApiKeySet, label: string): Route[] {
  return [
    route({
      method: 'GET',
      path,
      auth: 'user',
      summary: `The caller's ${label} (never the key value)`,
      responses: () => ({ 200: z.array(apiKeyOut()) }),
      handler: async (_req, ctx) => ok((await listApiKeys(ctx, { key_set: keySet })).map(apiKeyView.project)),
    }),
    route({
      method: 'POST',
      path,
      auth: 'user',
      summary: `Create one of the caller's ${label}: the value is in this answer only (plan features crud_pro and crud_api; counts against max_api_keys_per_user)`,
      body: () => createApiKeyBody(keySet),
      responses: () => ({ 201: apiKeyCreatedOut() }),
      refusals: [403],
      handler: async ({ body }, ctx) => {
        const { apiKey, key } = await createApiKey(ctx, { ...body, key_set: keySet, unreachableProjects });
        return created({ ...apiKeyView.project(apiKey), key });
      },
    }),
    route({
      method: 'DELETE',
      path: `${path}/{key_id}`,
      auth: 'user',
      summary: `Revoke one of the caller's ${label} (its plan slot is free again)`,
      params: () => z.object({ key_id: uuid() }),
      responses: () => ({ 204: null }),
      refusals: [404],
      handler: async ({ params }, ctx) => {
        await revokeApiKey(ctx, { key_set: keySet, key_id: params.key_id });
        return noContent();
      },
    }),
  ];
}

/** A machine's sign-in: an API key for a short-lived access token limited to the key's scopes and projects. */
const exchangeRoute = route({
  method: 'POST',
  path: '/auth/api-key/token',
  auth: 'public',
  summary:
    "Exchange an API key (of /me/api-keys) for a short-lived access token limited to the key's scopes and projects; no refresh token: exchange again (rate-limited like sign-in)",
  body: exchangeApiKeyBody,
  responses: () => ({ 200: keyTokenOut() }),
  refusals: [401, 429],
  handler: async ({ body, sourceIp }, ctx) => ok(await exchangeApiKey(ctx, { api_key: body.api_key, sourceIp })),
});

export const apiKeyRoutes: Route[] = [
  ...keySetRoutes('/me/api-keys', 'api', 'API keys'),
  ...keySetRoutes('/me/metrics-api-keys', 'metrics', 'metrics API keys'),
  exchangeRoute,
];
