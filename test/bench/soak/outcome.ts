import { ApiError } from '../../../clients/typescript/src/errors.ts';

/**
 * How a write ended, as a client sees it: `ok` (2xx), `refused` (a definite 4xx), or `unknown` (no answer
 * worth trusting: a 503 that outlived the client's retries, a 409 still running, a dropped connection), after
 * which the write may or may not have happened.
 */
export type Outcome<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'refused'; status: number; detail: string }
  | { kind: 'unknown'; why: string };

export async function outcome<T>(call: () => Promise<{ data?: T }>): Promise<Outcome<T>> {
  try {
    return { kind: 'ok', value: (await call()).data as T };
  } catch (err) {
    if (err instanceof ApiError && err.status < 500 && err.status !== 409 && err.status !== 429)
      return { kind: 'refused', status: err.status, detail: err.detail };
    return { kind: 'unknown', why: err instanceof ApiError ? String(err.status) : (err as Error).name };
  }
}
