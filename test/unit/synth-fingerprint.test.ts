import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assemblyIsCurrent, SYNTH_INPUTS, synthFingerprint } from '../../infra/deployed/synth.ts';

/**
 * start:deployed synthesizes again only when what a synthesis reads changed since cdk.out was written:
 * the decision is the fingerprint of the inputs and settings, stamped into the assembly.
 */
let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const inputs = ['functions', 'shared', 'infra/cdk', 'package-lock.json', 'cdk.json', 'cdk.context.json'];
const fingerprint = (settings: Record<string, string | undefined> = { STRIPE_SECRET_ARN: 'arn:stripe' }) =>
  synthFingerprint(settings, root, inputs);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'synth-fingerprint-'));
  write('functions/projects/handler.ts', 'export const handler = 1;\n');
  write('shared/db/table.ts', 'export const TABLE = "t";\n');
  write('infra/cdk/stack.ts', 'export class Stack {}\n');
  write('package-lock.json', '{"lockfileVersion":3}\n');
  write('cdk.json', '{"app":"npx tsx infra/cdk/app.ts"}\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the synthesis fingerprint', () => {
  it('is the same for the same content and settings, whenever the files were written or touched', () => {
    const before = fingerprint();
    utimesSync(join(root, 'shared/db/table.ts'), new Date(), new Date(Date.now() + 60_000));
    write('functions/projects/handler.ts', 'export const handler = 1;\n'); // rewritten, same content
    expect(fingerprint()).toBe(before);
  });

  it.each([
    ['a function source', () => write('functions/projects/handler.ts', 'export const handler = 2;\n')],
    ['a shared source', () => write('shared/db/table.ts', 'export const TABLE = "u";\n')],
    ['the stack', () => write('infra/cdk/stack.ts', 'export class Stack { x = 1 }\n')],
    ['the lockfile', () => write('package-lock.json', '{"lockfileVersion":3,"packages":{}}\n')],
    ['the context in cdk.json', () => write('cdk.json', '{"app":"npx tsx infra/cdk/app.ts","context":{"a":1}}\n')],
    ['a cdk.context.json that appears', () => write('cdk.context.json', '{}\n')],
    ['a new source file', () => write('shared/db/keys.ts', 'export {};\n')],
    [
      'a file moved',
      () => {
        rmSync(join(root, 'shared/db/table.ts'));
        write('shared/table.ts', 'export const TABLE = "t";\n');
      },
    ],
  ])('changes with %s', (_what, change) => {
    const before = fingerprint();
    change();
    expect(fingerprint()).not.toBe(before);
  });

  it('changes with the settings the app is given (the context it reads from the environment), not with their order', () => {
    const before = fingerprint({ STRIPE_SECRET_ARN: 'arn:stripe', BOOTSTRAP_ADMIN_SECRET_ARN: 'arn:admin' });
    expect(fingerprint({ BOOTSTRAP_ADMIN_SECRET_ARN: 'arn:admin', STRIPE_SECRET_ARN: 'arn:stripe' })).toBe(before);
    expect(fingerprint({ STRIPE_SECRET_ARN: 'arn:stripe' })).not.toBe(before);
    expect(fingerprint({ STRIPE_SECRET_ARN: 'arn:stripe', BOOTSTRAP_ADMIN_SECRET_ARN: undefined })).toBe(
      fingerprint({ STRIPE_SECRET_ARN: 'arn:stripe' }),
    );
  });

  it('leaves out installed packages, build output and dot files', () => {
    const before = fingerprint();
    write('shared/node_modules/x/index.js', 'x');
    write('functions/dist/out.js', 'x');
    write('shared/.cache', 'x');
    expect(fingerprint()).toBe(before);
  });

  it('covers the sources the stack is built from (functions, shared, infra/cdk, the lockfile, cdk.json)', () => {
    expect(SYNTH_INPUTS).toEqual(
      expect.arrayContaining(['functions', 'shared', 'infra/cdk', 'package-lock.json', 'cdk.json']),
    );
  });
});

describe('the skip decision', () => {
  it('skips a finished assembly stamped with the current fingerprint, and synthesizes again after a change or without one', () => {
    const out = join(root, 'cdk.out');
    mkdirSync(out);
    expect(assemblyIsCurrent(out, fingerprint())).toBe(false); // nothing synthesized yet
    writeFileSync(join(out, '.synth-fingerprint'), fingerprint());
    expect(assemblyIsCurrent(out, fingerprint())).toBe(false); // stamped but no manifest: not a finished assembly
    writeFileSync(join(out, 'manifest.json'), '{}');
    expect(assemblyIsCurrent(out, fingerprint())).toBe(true);
    write('functions/projects/handler.ts', 'export const handler = 3;\n');
    expect(assemblyIsCurrent(out, fingerprint())).toBe(false);
    expect(assemblyIsCurrent(out, fingerprint({}))).toBe(false);
  });
});
