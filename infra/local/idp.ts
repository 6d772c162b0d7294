import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { outlastClientIdle } from './keep-alive.ts';

/**
 * The local identity provider: oidc-provider, an OpenID-certified provider, on
 * 127.0.0.1, so single sign-on runs on one machine (`npm start`, the tests). Its users are a map
 * (`users`: sub → e-mail, whether the e-mail is verified, name); its sign-in page lists them and
 * signs in the one chosen (no password: it stands in for a company's IdP, not for its security).
 * The ID token carries the e-mail claims (as Okta, Entra ID and Google Workspace send them).
 * One client is registered: `client_id`/`client_secret` with the product's callback as redirect URI.
 */
export interface IdpUser {
  email: string;
  email_verified?: boolean;
  name?: string;
}

export interface LocalIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  users: Map<string, IdpUser>;
  stop(): Promise<void>;
}

export const READY_MADE_USER = {
  sub: 'dev-user',
  email: 'dev@corp.example',
  name: 'Dev User',
  email_verified: true,
} as const;

export async function startLocalIdp(opts: {
  redirectUris: string[];
  port?: number;
  clientId?: string;
  clientSecret?: string;
  users?: Record<string, IdpUser>;
}): Promise<LocalIdp> {
  const users = new Map<string, IdpUser>(Object.entries(opts.users ?? { [READY_MADE_USER.sub]: READY_MADE_USER }));
  const clientId = opts.clientId ?? 'infracat-local';
  const clientSecret = opts.clientSecret ?? 'infracat-local-secret';
  const server: Server = outlastClientIdle(createServer());
  // a port in use rejects (the caller then takes any port), not an unhandled 'error' that ends the process
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // its own signing key per run (oidc-provider's built-in development keys are the same everywhere)
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'local-idp' }] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    cookies: { keys: ['local-idp-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: user.email,
          ...(user.email_verified === undefined ? {} : { email_verified: user.email_verified }),
          name: user.name ?? user.email,
        }),
      };
    },
  });
  const oidc = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/'))
      void interaction(req, res).catch((err: Error) =>
        res.writeHead(400, { 'content-type': 'text/plain' }).end(err.message),
      );
    else oidc(req, res);
  });

  /** GET: the sign-in page (pick a user); POST `login=<sub>`: signs that user in and consents to the scopes asked. */
  async function interaction(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'GET') {
      const options = [...users]
        .map(([sub, u]) => `<li><button name="login" value="${escapeHtml(sub)}">${escapeHtml(u.email)}</button></li>`)
        .join('');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><title>Local identity provider</title><h1>Local identity provider</h1><p>Sign in as:</p><form method="post"><ul>${options}</ul></form>`,
        );
      return;
    }
    const body = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => resolve(text));
    });
    const accountId = new URLSearchParams(body).get('login') ?? details.session?.accountId;
    if (!accountId || !users.has(accountId)) throw new Error('Unknown user');
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id! });
    grant.addOIDCScope(details.params.scope ?? 'openid');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    users,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
