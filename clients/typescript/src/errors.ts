/**
 * Every refusal of the service (any answer outside 2xx, after the client's own retries) is thrown as
 * one error class: the HTTP status, the service's `detail` as a readable string, and the raw body.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  /** The HTTP status of the refusal. */
  readonly status: number;
  /** The service's `detail`; a 422's list of failed fields is joined into one line (`body.email: Field required`). */
  readonly detail: string;
  /** The parsed JSON body (or the text when it is not JSON). */
  readonly body: unknown;
  /** `METHOD /path` of the request. */
  readonly request: string;
  /** Seconds from `Retry-After`, when the service sent one. */
  readonly retryAfter?: number;

  constructor(status: number, detail: string, body: unknown, request: string, retryAfter?: number) {
    super(`${status} ${detail}`);
    this.status = status;
    this.detail = detail;
    this.body = body;
    this.request = request;
    this.retryAfter = retryAfter;
  }

  /** A 422's failed fields as the service lists them (`detail` is then a list); empty for any other refusal. */
  get issues(): Issue[] {
    const detail = this.body && typeof this.body === 'object' ? (this.body as { detail?: unknown }).detail : undefined;
    return Array.isArray(detail) ? (detail as Issue[]).filter((i) => Array.isArray(i?.loc)) : [];
  }

  /** The 422 items by the field they name (`name`, `links`, …; the first message of each); items naming no field are under ''. */
  get fields(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const issue of this.issues) out[fieldOf(issue)] ??= issue.msg;
    return out;
  }

  /** Builds the error from a refused response (reads its body). */
  static async fromResponse(response: Response, request: string): Promise<ApiError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: the text is the body */
    }
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    return new ApiError(response.status, detailOf(body, response), body, request, retryAfter);
  }
}

/** One item of a 422 answer. */
export interface Issue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

/** The field an item names: `['body', 'links', 0]` → `links`; `['query', 'limit']` → `limit`; `['body']` → ''. */
export const fieldOf = (issue: Issue): string => String(issue.loc.slice(1).find((p) => typeof p === 'string') ?? '');

/** The `detail` of a refusal's body as one line. */
export function detailOf(body: unknown, response?: Response): string {
  const detail = body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) =>
        Array.isArray(d?.loc) ? `${d.loc.join('.')}: ${d.msg ?? 'invalid'}` : String(d?.msg ?? JSON.stringify(d)),
      )
      .join('; ');
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 500);
  return response ? `${response.status} ${response.statusText || 'error'}`.trim() : 'Request failed';
}

/** Seconds to wait from a `Retry-After` value (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A request that got no answer within the client's `timeoutMs` (after its retries, where it was safe to retry). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';

  readonly timeoutMs: number;
  /** `METHOD /path` of the request. */
  readonly request: string;

  constructor(timeoutMs: number, request: string) {
    super(`Request timed out after ${timeoutMs / 1000} s: ${request}`);
    this.timeoutMs = timeoutMs;
    this.request = request;
  }
}
