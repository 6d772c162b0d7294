import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { afterBundlingCommands, argon2Arm64Tarball, LAMBDA_ARCHITECTURE } from '../../infra/cdk/stack.ts';

/**
 * The Lambdas run on arm64 (docs/decisions/0072-arm64.md): argon2's arm64 binary comes from
 * a committed copy of the registry's tarball, which must be exactly the one package-lock.json pins.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version: string; integrity: string }>;
};
const locked = lock.packages['node_modules/@node-rs/argon2-linux-arm64-gnu'];
const out = mkdtempSync(join(tmpdir(), 'infra-catalog-argon2-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const REFRESH =
  'refresh it: cd infra/cdk/vendor && rm -f node-rs-argon2-linux-arm64-gnu-*.tgz && npm pack @node-rs/argon2-linux-arm64-gnu@<the locked version>';

describe("argon2's arm64 binary", () => {
  it('is what the stack deploys', () => {
    expect(LAMBDA_ARCHITECTURE.name).toBe('arm64');
  });

  it('is the tarball package-lock.json pins (same version as the loader, same sha512 integrity)', () => {
    expect(locked.version).toBe(lock.packages['node_modules/@node-rs/argon2'].version);
    const file = join(ROOT, argon2Arm64Tarball());
    expect(existsSync(file), `${file} is missing: ${REFRESH}`).toBe(true);
    expect(`sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`, REFRESH).toBe(
      locked.integrity,
    );
  });

  it('is unpacked beside every bundle by the afterBundling commands, with the loader, and no x64 binary', () => {
    for (const command of afterBundlingCommands('functions/auth/handler.ts', ROOT, out))
      execFileSync('sh', ['-c', command]);
    const dir = join(out, 'node_modules/@node-rs');
    expect(existsSync(join(dir, 'argon2/index.js'))).toBe(true);
    expect(existsSync(join(dir, 'argon2-linux-x64-gnu'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'argon2-linux-arm64-gnu/package.json'), 'utf8')).version).toBe(
      locked.version,
    );
    const elf = readFileSync(join(dir, 'argon2-linux-arm64-gnu/argon2.linux-arm64-gnu.node'));
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(elf.readUInt16LE(18)).toBe(183); // e_machine: EM_AARCH64
    // The loader asks for exactly this package on arm64 glibc Linux (Lambda's Amazon Linux 2023).
    expect(readFileSync(join(dir, 'argon2/index.js'), 'utf8')).toContain("require('@node-rs/argon2-linux-arm64-gnu')");
  });

  it('gives way to the x64 binary from node_modules when the architecture is switched back', () => {
    const x64 = join(out, 'x64');
    for (const command of afterBundlingCommands('functions/auth/handler.ts', ROOT, x64, Architecture.X86_64))
      execFileSync('sh', ['-c', command]);
    expect(readdirSync(join(x64, 'node_modules/@node-rs')).sort()).toEqual(['argon2', 'argon2-linux-x64-gnu']);
  });
});
