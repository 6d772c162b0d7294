import { afterAll, beforeAll } from 'vitest';

/**
 * Everything the process writes (stdout and stderr) while the test file runs, as the chunks written:
 * log lines and EMF metrics are seen as CloudWatch would receive them. Restored after the file.
 */
export function captureOutput(): string[] {
  const written: string[] = [];
  const writes = { out: process.stdout.write, err: process.stderr.write };
  beforeAll(() => {
    const capture = (chunk: unknown) => (written.push(String(chunk)), true);
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
  });
  afterAll(() => {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  });
  return written;
}
