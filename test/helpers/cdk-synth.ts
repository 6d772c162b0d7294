import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll } from 'vitest';
import { CatalogStack, type CatalogStackProps } from '../../infra/cdk/stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');
// Same feature flags as `cdk synth` (cdk.json); bundling skipped so no esbuild runs.
const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8'));
/** What the CLI adds to every `cdk synth` by default (--asset-metadata, --path-metadata): keys cdk.json may not set. */
const CLI_CONTEXT = { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true };

/** Where this process's apps write their cloud assemblies (one folder each), removed with the file's last hook. */
let outdir: string | undefined;
export const synthOutdir = () => (outdir ??= mkdtempSync(join(tmpdir(), 'infra-catalog-cdk-')));

/** A stack in its own app (own cloud assembly folder under `synthOutdir()`). */
export function synth(props: CatalogStackProps = {}): { stack: CatalogStack; template: Template } {
  const app = new App({
    outdir: mkdtempSync(join(synthOutdir(), 'app-')),
    context: { ...context, ...CLI_CONTEXT, 'aws:cdk:bundling-stacks': [] },
    // CloudFormation's own rules (a WASM engine, 2-4 CPU-s a synthesis) are checked where the template is deployed
    // from: `cdk synth` (the deployed-shape suite's synthesis, `npm run synth`), which fails on any finding (cdk.json).
    builtinCloudFormationValidation: false,
  });
  const s = new CatalogStack(app, 'Test', props);
  return { stack: s, template: Template.fromStack(s) };
}

let standard: ReturnType<typeof synth> | undefined;

/**
 * The stack with no props, synthesized once in the process however many suites read it (the in-process
 * suites, test/infra/stack.test.ts with the dashboard hosting's cases: the first synthesis of a process is
 * most of its cost, about 7 CPU-s; another takes about 1). Read it in a test or hook, after the `beforeAll`
 * registered here.
 */
export function useStandardStack(): () => ReturnType<typeof synth> {
  // Synthesizing the whole stack takes a minute or more when the machine is busy.
  beforeAll(() => {
    standard ??= synth();
  }, 180_000);
  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
    outdir = undefined;
    standard = undefined;
  });
  return () => standard!;
}
