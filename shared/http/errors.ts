/** A refusal with an HTTP status and the SPEC's `detail`. One constructor per kind keeps bodies byte-identical. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
  }
}

export const badRequest = (detail: string) => new AppError(400, detail);
export const unauthorized = (detail: string) => new AppError(401, detail, {}, { 'www-authenticate': 'Bearer' });
export const forbidden = (detail: string) => new AppError(403, detail);
export const notFound = (detail: string) => new AppError(404, detail);
export const conflict = (detail: string) => new AppError(409, detail);
export const gone = (detail: string) => new AppError(410, detail);
export const locked = (detail: string, lockedUntil: string) => new AppError(423, detail, { locked_until: lockedUntil });
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, 'Too many requests', {}, { 'retry-after': String(retryAfterSeconds) });

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
export const unprocessable = (issues: ValidationIssue[]) => new AppError(422, issues);
