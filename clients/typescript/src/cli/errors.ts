/** A refusal of the CLI itself (not the service's): printed as it is, with its exit code (1 unless given). */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** How long a 423 lockout lasts, from its `locked_until` (SPEC's detail only says "later"): ` Try again in 15 min (at 10:42:00 UTC).` */
export function lockoutHint(body: unknown, now = Date.now()): string {
  const until =
    body && typeof body === 'object' ? Date.parse(String((body as { locked_until?: unknown }).locked_until)) : NaN;
  if (Number.isNaN(until)) return '';
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  return ` Try again in ${minutes} min (at ${new Date(until).toISOString().slice(11, 19)} UTC).`;
}
