import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { needsOf } from './needs.ts';
import { SEPARATE_PACKAGES } from './aliases.ts';

/** The repository's root: entries, the lockfile and the files copied beside bundles are read from it. */
export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Files a function reads from beside its bundle at run time, copied in after bundling: the API
 * reference page's Redoc script (1.1 MB, read on first request so the docs function's cold start never parses it).
 */
export const FILES_BESIDE_BUNDLE: Record<string, string[]> = {
  'functions/docs/handler.ts': ['node_modules/redoc/bundles/redoc.standalone.js'],
};

/**
 * Every function runs on Graviton (docs/decisions/0072-arm64.md): cheaper per GB-second.
 * `Architecture.X86_64` here switches back (argon2's x64 binary is then copied from node_modules).
 */
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;

/**
 * argon2's native binary for arm64 Linux: the registry's tarball of the version package-lock.json pins,
 * committed under infra/cdk/vendor/ (`npm ci` on an x86 machine skips that optional package, and synth
 * stays offline); test/infra/argon2-arm64.test.ts holds it to the lockfile's integrity.
 */
export function argon2Arm64Tarball(): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  };
  return `infra/cdk/vendor/node-rs-argon2-linux-arm64-gnu-${lock.packages['node_modules/@node-rs/argon2-linux-arm64-gnu'].version}.tgz`;
}

/** The separate packages (aliases.ts) shipped beside a function's bundle: all functions', and those its bundle needs. */
export function separatePackagesOf(entry: string): (keyof typeof SEPARATE_PACKAGES)[] {
  return (Object.keys(SEPARATE_PACKAGES) as (keyof typeof SEPARATE_PACKAGES)[]).filter((pkg) => {
    const { when } = SEPARATE_PACKAGES[pkg];
    return when === 'always' || needsOf(ROOT, entry)[when];
  });
}

/**
 * What runs after esbuild, per function: argon2's loader copied and its arm64 binary unpacked in by
 * hand (`nodeModules` would run `npm install`, which needs the network), then the entry's files beside the bundle.
 */
export function afterBundlingCommands(
  entry: string,
  inputDir: string,
  outputDir: string,
  architecture = LAMBDA_ARCHITECTURE,
): string[] {
  const modules = `${outputDir}/node_modules/@node-rs`;
  const binary =
    architecture.name === Architecture.ARM_64.name
      ? [
          `mkdir -p "${modules}/argon2-linux-arm64-gnu"`,
          `tar -xzf "${inputDir}/${argon2Arm64Tarball()}" -C "${modules}/argon2-linux-arm64-gnu" --strip-components=1`,
        ]
      : [`cp -R "${inputDir}/node_modules/@node-rs/argon2-linux-x64-gnu" "${modules}/"`]; // x86_64: the binary npm ci installed here
  return [
    `mkdir -p "${modules}"`,
    `cp -R "${inputDir}/node_modules/@node-rs/argon2" "${modules}/"`,
    ...binary,
    ...(FILES_BESIDE_BUNDLE[entry] ?? []).map((file) => `cp "${inputDir}/${file}" "${outputDir}/"`),
  ];
}

/** The CloudWatch namespace of the functions' EMF metrics (Powertools Metrics). */
export const METRICS_NAMESPACE = 'InfraCatalog';

/**
 * Declared on every function, empty (the service's own endpoint), for `sam local invoke`: SAM's
 * `--env-vars` file only overrides variables the template declares, and this is the one that points a
 * function at DynamoDB Local (infra/local/sam-env.json; README "Invoking functions with SAM").
 */
export const SAM_OVERRIDABLE_ENVIRONMENT = { DYNAMODB_ENDPOINT: '' } as const;

/** Acknowledges one cdk-nag (AwsSolutions) finding on a construct, with its reason. */
export const ack = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${id}`, reason });
