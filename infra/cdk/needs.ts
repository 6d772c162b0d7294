import { buildSync, type Metafile } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueName } from '#shared/queue';
import { stackFunctions } from './functions.ts';

/**
 * What a function's code can reach, read off its own bundle (least privilege without a hand-kept
 * list): esbuild bundles the entry as the stack does and reports which modules end up in it, and
 * each capability lives in one module. A grant follows from a module being in the bundle:
 *
 *   shared/clients/dynamo.ts  → the table          shared/storage.ts      → document objects
 *   shared/queue.ts + `enqueue('<queue>'` in a bundled file → sending to that queue
 *   shared/auth/secret-box.ts → the TOTP KMS key    shared/auth/signing-key.ts → the signing secret
 *   shared/domain/billing/payments/index.ts → the Stripe secret (when one is configured)
 *   shared/push.ts            → posting to progress WebSocket connections
 *   shared/domain/discovery/providers/aws.ts → sts:AssumeRole, only with one of our external ids
 *
 * A module esbuild dropped (tree-shaken, 0 bytes in the output) grants nothing.
 */
export interface Needs {
  table: boolean;
  queues: QueueName[];
  documents: boolean;
  totpKey: boolean;
  signingKey: boolean;
  stripeSecret: boolean;
  push: boolean;
  assumeRole: boolean;
  /** It reads or writes documents as text: the YAML library is shipped beside it (aliases.ts). */
  yaml: boolean;
  /** It streams documents into the bucket (`uploadDocument`): the SDK's lib-storage is shipped beside it (aliases.ts). */
  streamedUpload: boolean;
  /** It signs people in through an OpenID Connect identity provider: openid-client is shipped beside it (aliases.ts). */
  openidClient: boolean;
  /** It checks custom field values against a pattern: re2js (RE2's linear-time engine) is shipped beside it (aliases.ts). */
  userPatterns: boolean;
}

const cache = new Map<string, Needs>();

/**
 * `entry`'s needs. The first ask reads every function's of the stack in one esbuild build: its entries
 * share the parsing of the modules they have in common (27 bundles for about a quarter of the CPU of one
 * build each, measured).
 */
export function needsOf(root: string, entry: string): Needs {
  const key = join(root, entry);
  if (!cache.has(key)) readNeeds(root, [...new Set([entry, ...stackFunctions().map((f) => f.entry)])]);
  return cache.get(key) as Needs;
}

function readNeeds(root: string, entries: string[]): void {
  const result = buildSync({
    entryPoints: entries.map((entry) => join(root, entry)),
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    outdir: 'needs',
    outbase: root,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // The project's own modules are what the needs are read off: packages are left unread (the same needs for
    // every function; 5.2 -> 1.5 CPU-s), and an external package's import stays in the output only when used.
    packages: 'external',
    logLevel: 'silent',
  });
  for (const output of Object.values(result.metafile.outputs))
    if (output.entryPoint) cache.set(join(root, output.entryPoint), needsOfBundle(root, output));
}

/** What one bundle (esbuild's account of an output) can reach. */
function needsOfBundle(root: string, output: Metafile['outputs'][string]): Needs {
  const bundled = Object.entries(output.inputs)
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([file]) => file);
  const has = (file: string) => bundled.includes(file);
  const queues = new Set<QueueName>();
  if (has('shared/queue.ts')) {
    for (const file of bundled.filter((f) => !f.startsWith('node_modules/'))) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/\benqueue\('(\w+)'/g))
        queues.add(m[1] as QueueName);
    }
  }
  return {
    table: has('shared/clients/dynamo.ts'),
    queues: [...queues].sort(),
    documents: has('shared/storage.ts'),
    totpKey: has('shared/auth/secret-box.ts'),
    signingKey: has('shared/auth/signing-key.ts'),
    stripeSecret: has('shared/domain/billing/payments/index.ts'),
    push: has('shared/push.ts'),
    assumeRole: has('shared/domain/discovery/providers/aws.ts'),
    yaml: has('shared/domain/impex/yaml.ts'),
    // An import of an external package stays in the output only when code that uses it does.
    streamedUpload: output.imports.some((i) => i.path === '@aws-sdk/lib-storage'),
    openidClient: has('shared/domain/sso/openid.ts'),
    userPatterns: has('shared/domain/catalog/custom-fields/patterns.ts'),
  };
}
