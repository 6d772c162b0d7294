import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.d.ts';
import { ApiError, detailOf, parseRetryAfter } from './errors.ts';
import { cursorPages, offsetPages } from './paging.ts';
import type { ClientOptions, LoginInput, Tokens } from './options.ts';
import { DEFAULT_TIMEOUT_MS, IDEMPOTENCY_KEY, transport } from './transport.ts';
import { querySerializer } from './query.ts';

export type { ClientOptions, LoginInput, Tokens } from './options.ts';
export { multipart, type UploadFile } from './multipart.ts';

/** SPEC's refusal of a stale access token: the one answer that makes the client refresh and try once more. */
export const EXPIRED_TOKEN = 'Invalid or expired token';
/** SPEC's login answer for a right password without the second factor. */
export const SECOND_FACTOR_REQUIRED = 'TOTP code required';

/** Routes that never carry the access token (sign-in and the refresh itself). */
const PUBLIC = new Set([
  '/auth/login',
  '/auth/register',
  '/auth/token/refresh',
  '/auth/api-key/token',
  '/auth/password/reset',
  '/auth/password/reset/confirm',
  '/plans',
  '/impex/schema',
]);
/** 429 and 503: the server did not run the request, so any method may send it again. */
const RETRYABLE = new Set([429, 503]);
/**
 * A 409 with `Retry-After` did nothing either and may pass when asked again: a write that lost a
 * race (its server-side retries spent), or a keyed request whose first run is still going (asking
 * again gets its answer). A 409 without it (a state the same request cannot change) is final.
 */
const retryLater = (response: Response) =>
  RETRYABLE.has(response.status) || (response.status === 409 && response.headers.has('retry-after'));

/**
 * The typed client: `api` is an openapi-fetch client over the generated `paths` (every path, parameter
 * and body checked by the compiler), with two middlewares: one signs requests with the access token
 * (getting one from the refresh token, or the API key, when it has none), the other retries 429/503 after
 * `Retry-After`, refreshes (or exchanges the API key again) once on 401 'Invalid or expired token', and throws every remaining refusal
 * as an `ApiError`. So `data` of a call that returns is always the success body.
 */
export class InfracatClient {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private accessToken?: string;
  private refreshToken?: string;
  private refreshing?: Promise<string>;
  private readonly opts: ClientOptions;
  private readonly cookie: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly doFetch: (input: Request) => Promise<Response>;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.accessToken = opts.accessToken;
    this.refreshToken = opts.refreshToken;
    this.cookie = opts.refreshCookie ?? false;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.doFetch = transport(
      opts.fetch ?? ((req, init) => fetch(req, init)),
      opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      this.baseUrl,
      this.sleep,
    );
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: this.doFetch,
      querySerializer,
      headers: opts.userAgent ? { 'user-agent': opts.userAgent } : undefined,
    });
    this.api.use(this.authMiddleware(), this.resilienceMiddleware());
  }

  /** The current refresh token (rotated by every refresh): what a caller stores to keep the session. */
  get session(): { refreshToken?: string; accessToken?: string } {
    return { refreshToken: this.refreshToken, accessToken: this.accessToken };
  }

  /**
   * Signs in with a password; when the service asks for the second factor ('TOTP code required')
   * and none was given, asks `secondFactor()` for it and signs in again with the code.
   */
  async login(input: LoginInput): Promise<Tokens> {
    const attempt = async (totp_code?: string) =>
      (
        await this.api.POST('/auth/login', {
          body: { email: input.email, password: input.password, ...(totp_code ? { totp_code } : {}) },
        })
      ).data!;
    let tokens: Tokens;
    try {
      tokens = await attempt(input.totpCode);
    } catch (err) {
      if (
        !(
          err instanceof ApiError &&
          err.status === 401 &&
          err.detail === SECOND_FACTOR_REQUIRED &&
          !input.totpCode &&
          input.secondFactor
        )
      )
        throw err;
      tokens = await attempt((await input.secondFactor()).trim());
    }
    await this.setTokens(tokens);
    return tokens;
  }

  /** Keeps the pair of a sign-in made through `api` (a registration, an invitation accepted with a password). */
  async signedIn(tokens: Pick<Tokens, 'access_token'> & Partial<Tokens>): Promise<void> {
    await this.setTokens(tokens);
  }

  /** Whether the client can get a new access token by itself: a refresh cookie, a refresh token or an API key. */
  private get renewable(): boolean {
    return this.cookie || Boolean(this.refreshToken) || Boolean(this.opts.apiKey);
  }

  /**
   * Gets a new access token: with an API key, exchanges it again; else exchanges the refresh token (or
   * cookie) for a new pair. One at a time; concurrent callers share it. A refusal forgets the access token.
   */
  refresh(): Promise<string> {
    this.refreshing ??= (async () => {
      try {
        if (this.opts.apiKey) {
          const { data } = await this.api.POST('/auth/api-key/token', { body: { api_key: this.opts.apiKey } });
          this.accessToken = data!.access_token;
          return data!.access_token;
        }
        if (!this.cookie && !this.refreshToken)
          throw new ApiError(401, 'Not signed in', undefined, 'POST /auth/token/refresh');
        const { data } = await this.api.POST('/auth/token/refresh', {
          body: this.cookie ? {} : { refresh_token: this.refreshToken },
        });
        await this.setTokens(data!);
        return data!.access_token;
      } catch (err) {
        if (err instanceof ApiError) this.accessToken = undefined;
        throw err;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** Ends the session on the service (the refresh token's too) and forgets the tokens. */
  async logout(): Promise<void> {
    const refresh_token = this.refreshToken;
    try {
      // The cookie, which this client cannot see, may hold a session even when no token is known.
      if (this.cookie || this.accessToken || refresh_token)
        await this.api.POST('/auth/logout', { body: refresh_token ? { refresh_token } : {} });
    } finally {
      this.accessToken = undefined;
      this.refreshToken = undefined;
    }
  }

  /** Every service of an environment matching the filters, page by page (offset/limit). */
  services(
    query: Omit<NonNullable<paths['/services']['get']['parameters']['query']>, 'limit' | 'offset'>,
    opts: { pageSize?: number } = {},
  ) {
    return offsetPages((page) => this.api.GET('/services', { params: { query: { ...query, ...page } } }), {
      limit: opts.pageSize ?? 200,
    });
  }

  /** A project's audit log, newest first, following `X-Next-Cursor` to the end. */
  auditLog(
    projectId: string,
    query: Omit<NonNullable<paths['/projects/{project_id}/audit-log']['get']['parameters']['query']>, 'cursor'> = {},
  ) {
    return cursorPages((cursor) =>
      this.api.GET('/projects/{project_id}/audit-log', {
        params: { path: { project_id: projectId }, query: { ...query, ...(cursor ? { cursor } : {}) } },
      }),
    );
  }

  /** The caller's own audit log (`/me/audit-log`), to the end. */
  myAuditLog(query: Omit<NonNullable<paths['/me/audit-log']['get']['parameters']['query']>, 'cursor'> = {}) {
    return cursorPages((cursor) =>
      this.api.GET('/me/audit-log', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }),
    );
  }

  private async setTokens(tokens: Pick<Tokens, 'access_token'> & Partial<Tokens>) {
    this.accessToken = tokens.access_token;
    if (this.cookie || !tokens.refresh_token) return; // in cookie mode the refresh token stays in its cookie: no pair to hand out
    this.refreshToken = tokens.refresh_token;
    await this.opts.onTokens?.({ access_token: tokens.access_token, refresh_token: tokens.refresh_token });
  }

  private authMiddleware(): Middleware {
    return {
      onRequest: async ({ request, schemaPath }) => {
        if (PUBLIC.has(schemaPath) || request.headers.has('authorization')) return undefined;
        if (schemaPath === '/auth/logout' && !this.accessToken) return undefined; // the refresh token in the body is enough
        const token = this.accessToken ?? (this.refreshToken || this.opts.apiKey ? await this.refresh() : undefined);
        if (token) request.headers.set('authorization', `Bearer ${token}`);
        return request;
      },
    };
  }

  private resilienceMiddleware(): Middleware {
    const sent = new Map<string, Request>();
    const retry = this.opts.retry ?? {};
    const attempts = Math.max(1, retry.attempts ?? 4);
    const maxDelay = retry.maxDelaySeconds ?? 60;
    return {
      onRequest: ({ request, id }) => {
        // One key per logical POST, kept by every retry below: the server runs it at most once.
        if (request.method === 'POST' && !request.headers.has(IDEMPOTENCY_KEY))
          request.headers.set(IDEMPOTENCY_KEY, crypto.randomUUID());
        sent.set(id, request.clone());
        return request;
      },
      onError: ({ id }) => {
        sent.delete(id);
        return undefined;
      },
      onResponse: async ({ request, response, schemaPath, id }) => {
        const original = sent.get(id)!;
        sent.delete(id);
        const label = `${request.method} ${schemaPath}`;
        let refreshed = false;
        for (let attempt = 1; ; attempt++) {
          if (retryLater(response) && attempt < attempts) {
            const seconds =
              parseRetryAfter(response.headers.get('retry-after')) ?? retry.defaultDelaySeconds ?? 2 ** (attempt - 1);
            if (seconds > maxDelay) break;
            await response.body?.cancel();
            await this.sleep(seconds * 1000);
            response = await this.doFetch(original.clone());
            continue;
          }
          if (
            response.status === 401 &&
            !refreshed &&
            this.renewable &&
            original.headers.get('authorization')?.startsWith('Bearer ') &&
            !PUBLIC.has(schemaPath)
          ) {
            const body = await response
              .clone()
              .json()
              .catch(() => undefined);
            if (detailOf(body) === EXPIRED_TOKEN) {
              refreshed = true;
              const token = await this.refresh().catch((err: unknown) => {
                if (err instanceof ApiError) this.opts.onSessionEnded?.();
                throw err;
              });
              const again = original.clone();
              again.headers.set('authorization', `Bearer ${token}`);
              response = await this.doFetch(again);
              continue;
            }
          }
          break;
        }
        if (!response.ok) throw await ApiError.fromResponse(response, label);
        return response;
      },
    };
  }
}

export function createInfracatClient(opts: ClientOptions): InfracatClient {
  return new InfracatClient(opts);
}
