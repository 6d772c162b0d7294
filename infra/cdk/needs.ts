import { buildSync } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueName } from '#shared/queue';

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

export function needsOf(root: string, entry: string): Needs {
  const known = cache.get(entry);
  if (known) return known;
  const result = buildSync({
    entryPoints: [join(root, entry)],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    outfile: 'needs.mjs',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: ['@aws-sdk/*', '@node-rs/argon2'],
    logLevel: 'silent',
  });
  const bundled = Object.values(result.metafile.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([file]) => file),
  );
  const has = (file: string) => bundled.includes(file);
  const queues = new Set<QueueName>();
  if (has('shared/queue.ts')) {
    for (const file of bundled.filter((f) => !f.startsWith('node_modules/'))) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/\benqueue\('(\w+)'/g))
        queues.add(m[1] as QueueName);
    }
  }
  const needs: Needs = {
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
    streamedUpload: Object.values(result.metafile.outputs).some((o) =>
      o.imports.some((i) => i.path === '@aws-sdk/lib-storage'),
    ),
    openidClient: has('shared/domain/sso/openid.ts'),
    userPatterns: has('shared/domain/catalog/custom-fields/patterns.ts'),
  };
  cache.set(entry, needs);
  return needs;
}
