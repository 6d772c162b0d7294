/** The token pair the service hands out at sign-in and on every refresh (the refresh token rotates). */
export interface Tokens {
  access_token: string;
  refresh_token: string;
}

export interface ClientOptions {
  /** The service's address, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** A refresh token from an earlier session: the client gets its access token from it on the first call. */
  refreshToken?: string;
  accessToken?: string;
  /**
   * A machine's credential instead of a session: an API key (`ick_…`, from /me/api-keys), exchanged at
   * `POST /auth/api-key/token` for a short-lived access token on the first call, and again whenever
   * that token expires ('Invalid or expired token'). No refresh token, nothing to store.
   */
  apiKey?: string;
  /**
   * The browser's session: the refresh token is the HttpOnly `refresh_token` cookie the service sets at
   * sign-in, which the page cannot read. A refresh posts an empty body on the same origin (the cookie
   * goes with it) and only the access token is kept, in memory.
   */
  refreshCookie?: boolean;
  /** Called with every new pair (sign-in, refresh; not with a cookie): store the refresh token here to keep the session. */
  onTokens?: (tokens: Tokens) => void | Promise<void>;
  /** Called when the refresh a call needed is refused (the session was revoked or has expired). */
  onSessionEnded?: () => void;
  /** 429, 503 and a 409 with `Retry-After` are retried after `Retry-After`: at most `attempts` tries in all (default 4), waiting at most `maxDelaySeconds` each (default 60). */
  retry?: { attempts?: number; maxDelaySeconds?: number; defaultDelaySeconds?: number };
  /** Each try of a request is aborted after this long (default 30 000): a server that never answers ends in a `RequestTimeoutError`. */
  timeoutMs?: number;
  /** Another fetch (tests, proxies): called as `fetch(request, { signal })`, and it must heed `signal` (each try's timeout). */
  fetch?: (input: Request, init: { signal: AbortSignal }) => Promise<Response>;
  /** How the client waits before a retry (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** Sent as `User-Agent`. */
  userAgent?: string;
}

export interface LoginInput {
  email: string;
  password: string;
  /** A six-digit authenticator code or a recovery code, when known up front. */
  totpCode?: string;
  /** Asked when the service answers that the account needs its second factor: returns the code (authenticator or recovery). */
  secondFactor?: () => Promise<string>;
}
