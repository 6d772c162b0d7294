import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/**
 * How every function is bundled beyond esbuild's defaults: the stack's bundling and the cold-start
 * bench (test/bench/cold.ts) read the same lists, so the bench measures what is deployed.
 */
const here = import.meta.dirname;

/** esbuild aliases. */
export const BUNDLE_ALIASES: Record<string, string> = {
  // `node:http` (and `http`, as the Stripe SDK imports it) without its ESM facade, which loads undici: node-http.ts.
  'node:http': join(here, 'node-http.ts'),
  http: join(here, 'node-http.ts'),
};

/**
 * Packages only ever imported dynamically, on first use, kept out of the function's bundle: a bundle
 * would still carry their code (inlined lazily, but parsed and compiled at every cold start). Each is
 * shipped beside the bundle instead, pre-bundled into one file at `node_modules/<name>/index.mjs`, and
 * loaded by the first call that needs it. `when` says which functions get it: all, or those whose
 * bundle has that need (needs.ts).
 */
export const SEPARATE_PACKAGES = {
  /** The Stripe SDK (some 250 KB): billing and the jobs worker, at their first call to Stripe. */
  stripe: { entry: 'node_modules/stripe/esm/stripe.esm.node.js', when: 'stripeSecret' },
  /** The YAML library (some 110 KB): the jobs worker, at its first export or import (its ESM build). */
  yaml: { entry: 'node_modules/yaml/browser/index.js', when: 'yaml' },
  /** js-yaml (some 40 KB): beside `yaml` (impex/yaml.ts reads valid documents with it, without a node tree). */
  'js-yaml': { entry: 'node_modules/js-yaml/dist/js-yaml.mjs', when: 'yaml' },
  /** Powertools Tracer with aws-xray-sdk-core (some 120 KB): every function, loaded at the first invocation when tracing is on. */
  '@aws-lambda-powertools/tracer': {
    entry: 'node_modules/@aws-lambda-powertools/tracer/lib/esm/index.js',
    when: 'always',
  },
  /**
   * The SDK's streamed upload (some 25 KB): the jobs worker, at its first export (shared/storage.ts). Shipped, not left to
   * the runtime: the runtime documents only which SDK version it carries, not that this library is among its packages
   * (docs/decisions/0104-the-scale-bench-runs-the-bundled-jobs-worker-lib-storage-is.md). Its own `@aws-sdk/client-s3` stays the runtime's.
   */
  '@aws-sdk/lib-storage': { entry: 'node_modules/@aws-sdk/lib-storage/dist-es/index.js', when: 'streamedUpload' },
  /** openid-client with oauth4webapi: imported by the single sign-on routes at their first call only (shared/domain/sso/openid.ts). */
  'openid-client': { entry: 'node_modules/openid-client/build/index.js', when: 'openidClient' },
  /** re2js (RE2's linear-time engine, some 300 KB): the catalog's writes, at the first custom field value checked against a pattern. */
  re2js: { entry: 'node_modules/re2js/build/index.js', when: 'userPatterns' },
} as const satisfies Record<
  string,
  { entry: string; when: 'always' | 'stripeSecret' | 'yaml' | 'streamedUpload' | 'openidClient' | 'userPatterns' }
>;

/** What every bundle leaves out: the SDK v3 the Lambda runtime ships, argon2 (a native addon esbuild cannot bundle), the separate packages (loaded on first use from their own file). */
export const EXTERNAL_MODULES = ['@aws-sdk/*', '@node-rs/argon2', ...Object.keys(SEPARATE_PACKAGES)];

export const BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Shell commands (CDK's afterBundling) that put `pkg`, pre-bundled, into `<outputDir>/node_modules/<pkg>/`. */
export function separatePackageCommands(
  inputDir: string,
  outputDir: string,
  pkg: keyof typeof SEPARATE_PACKAGES,
): string[] {
  const dir = `${outputDir}/node_modules/${pkg}`;
  const aliases = Object.entries(BUNDLE_ALIASES)
    .map(([from, to]) => `--alias:${from}=${to}`)
    .join(' ');
  return [
    `mkdir -p "${dir}"`,
    `"${inputDir}/node_modules/.bin/esbuild" "${inputDir}/${SEPARATE_PACKAGES[pkg].entry}" --bundle --platform=node --format=esm --target=node24 --minify --external:@aws-sdk/* ${aliases} --banner:js="${BANNER}" --outfile="${dir}/index.mjs" --log-level=error`,
    `echo '{"name":"${pkg}","type":"module","main":"index.mjs","exports":{".":"./index.mjs"}}' > "${dir}/package.json"`,
  ];
}

/**
 * esbuild's options for every function's bundle (infra/cdk/function-bundles.ts); the benches that measure a
 * function build it with the same (test/bench/deployed-bundle.ts).
 */
export const FUNCTION_BUILD = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  sourcesContent: false, // stack traces need file:line only; keeps the zip small
  // ESM output has no `require`: bundled CommonJS dependencies (and argon2's loader) need one.
  banner: { js: BANNER },
  external: EXTERNAL_MODULES,
  alias: BUNDLE_ALIASES,
} satisfies BuildOptions;
