import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

/**
 * An identity provider that lies (tests only): it serves a real discovery document and JWKS, sends the
 * browser straight back with a code, and answers the token request with an ID token built as the test
 * says: a wrong nonce, another audience, an expired token, a signature by a key it does not publish.
 * The product must refuse each one. (oidc-provider, the honest local IdP, cannot be made to lie.)
 */
export interface Forgery {
  nonce?: string;
  aud?: string;
  /** Seconds from now (negative: expired). */
  expIn?: number;
  /** Sign with a key the JWKS does not hold. */
  otherKey?: boolean;
  claims?: Record<string, unknown>;
}

export interface ForgingIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the next token answer forges. */
  next: Forgery & { sub: string; email: string };
  stop(): Promise<void>;
}

export async function startForgingIdp(): Promise<ForgingIdp> {
  const published = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const pending = new Map<string, { nonce: string }>();
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: ForgingIdp = {
    issuer,
    clientId: 'forged-client',
    clientSecret: 'forged-secret',
    next: { sub: 'nobody', email: 'nobody@example.com' },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server.on('request', (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (url.pathname === '/jwks') return json({ keys: [jwk] });
    if (url.pathname === '/authorize') {
      const code = `code-${pending.size}-${Date.now()}`;
      pending.set(code, { nonce: url.searchParams.get('nonce')! });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state')!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', async () => {
        const code = new URLSearchParams(body).get('code')!;
        const asked = pending.get(code);
        pending.delete(code);
        if (!asked)
          return res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_grant' }));
        const f = idp.next;
        const now = Math.floor(Date.now() / 1000);
        const key: CryptoKey = f.otherKey ? other.privateKey : published.privateKey;
        const idToken = await new SignJWT({
          nonce: f.nonce ?? asked.nonce,
          email: f.email,
          email_verified: true,
          ...f.claims,
        })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(issuer)
          .setSubject(f.sub)
          .setAudience(f.aud ?? idp.clientId)
          .setIssuedAt(now - (f.expIn !== undefined && f.expIn < 0 ? 3600 : 0))
          .setExpirationTime(now + (f.expIn ?? 300))
          .sign(key);
        json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
      });
      return;
    }
    res.writeHead(404).end();
  });
  return idp;
}
