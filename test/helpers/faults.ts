import { expect } from 'vitest';
import { configureFaults } from '#shared/faults';
import { resetClients } from '#shared/clients';

/** Faults on for what follows (set-up before it ran without); `faults('')` turns them off. */
export function faults(spec: string, seed = 1) {
  configureFaults(spec, seed);
  resetClients();
}

/** What a careful client does: the same request (and key) again after a 503, or a 409 that says when. */
export async function persist<T extends { status: number; headers: Headers }>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    const retryable = res.status === 503 || (res.status === 409 && res.headers.has('retry-after'));
    if (!retryable || attempt === 30) return res;
    if (res.status === 503) expect(res.headers.get('retry-after')).toBe('1');
    await new Promise((r) => setTimeout(r, 20));
  }
}
