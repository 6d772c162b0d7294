import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { INFRACAT_BIN, runInfracat } from '../helpers/infracat-binary.ts';

/**
 * The CI workflow of docs/cli.md ("A CI workflow"), run as written. Its `run:` commands,
 * exactly as the document has them, run in bash (as GitHub's runner runs them: -e, pipefail) with the
 * workflow's environment, API keys as the only credential (no session file, HOME empty): a read key for
 * the pull request's job, a read and write key for the merge's, the real `infracat` against the local stack. `npm` and `gh` are stand-ins that record what they were asked.
 */
const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);
const SLOW = 180_000;

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  env: Record<string, string>;
  jobs: Record<string, { if: string; env?: Record<string, string>; steps: Step[] }>;
}

/** The YAML block of docs/cli.md's CI workflow. */
async function documentedWorkflow(): Promise<Workflow> {
  const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### A CI workflow'));
  const block = /^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1];
  expect(block, 'a yaml block under "A CI workflow"').toBeTruthy();
  return parse(block!) as Workflow;
}

const FILE = `apiVersion: infracatalog/v1
kind: Environment
spec:
  services:
    - name: api
      port: 8080
      floor: host-a
    - name: db
  service_floors:
    - hostname: host-a
      type: vm
  service_links:
    - from: api
      to: db
`;

describe('the documented GitOps workflow, with an API key only', () => {
  let root: string;
  let work: string;
  let home: string;
  let fakes: string;
  /** The secrets of the run: the pull request's read key, the merge's read and write key. */
  const secrets = { INFRACAT_PLAN_KEY: '', INFRACAT_APPLY_KEY: '' };
  const o = { token: '', projectId: '', envId: '' };
  const transcript: string[] = [];

  /** `${{ … }}` as GitHub would fill it in for this run. */
  const expressions = (event: 'pull_request' | 'push', given: typeof secrets): Record<string, string> => ({
    'vars.INFRACAT_URL': ref.stack.url,
    ...Object.fromEntries(Object.entries(given).map(([k, v]) => [`secrets.${k}`, v])),
    'github.token': 'gh-test-token',
    'github.event.pull_request.number': event === 'pull_request' ? '17' : '',
  });
  const fill = (values: Record<string, string> | undefined, event: 'pull_request' | 'push', given: typeof secrets) =>
    Object.fromEntries(
      Object.entries(values ?? {}).map(([k, v]) => [
        k,
        String(v).replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, e: string) => {
          const value = expressions(event, given)[e];
          if (value === undefined) throw new Error(`no value for \${{ ${e} }}`);
          return value;
        }),
      ]),
    );

  /** Runs one `run:` command as GitHub's runner does: `bash --noprofile --norc -eo pipefail`, in the checkout. */
  function bash(script: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
    const full: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(full)) if (k.startsWith('INFRACAT_') || k === 'XDG_CONFIG_HOME') delete full[k];
    Object.assign(full, env, {
      HOME: home,
      PATH: [fakes, dirname(INFRACAT_BIN), dirname(process.execPath), process.env.PATH].join(delimiter),
    });
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
        cwd: work,
        env: full,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
  }

  /** Runs a job's `run:` steps in order (the `uses:` steps are the runner's: checkout and Node are here already); stops at the first failure. */
  async function runJob(name: string, event: 'pull_request' | 'push', given = secrets) {
    const wf = await documentedWorkflow();
    const job = wf.jobs[name];
    expect(job.if).toContain(`github.event_name == '${event}'`);
    const results: { step: string; code: number; out: string }[] = [];
    for (const step of job.steps.filter((s) => s.run)) {
      const env = { ...fill(wf.env, event, given), ...fill(job.env, event, given), ...fill(step.env, event, given) };
      const { code, out } = await bash(step.run!, env);
      const label = step.name ?? step.run!.split('\n')[0];
      transcript.push(
        `--- ${name} / ${label} (exit ${code})`,
        ...step
          .run!.trimEnd()
          .split('\n')
          .map((l) => `$ ${l}`),
        out.trimEnd(),
      );
      results.push({ step: label, code, out });
      if (code !== 0) break;
    }
    return results;
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'infracat-gitops-'));
    work = join(root, 'checkout');
    home = join(root, 'home');
    fakes = join(root, 'fakes');
    await Promise.all([mkdir(join(work, 'envs'), { recursive: true }), mkdir(home), mkdir(fakes)]);
    await writeFile(join(work, 'envs', 'production.yaml'), FILE);
    // Stand-ins: npm (the install: infracat is already on PATH) and gh (the comment: its body kept for the test).
    await writeFile(join(fakes, 'npm'), `#!/bin/sh\necho "npm $*" >> "${root}/npm.log"\n`);
    await writeFile(
      join(fakes, 'gh'),
      `#!/bin/sh\necho "gh $*" >> "${root}/gh.log"\nwhile [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "${root}/comment.md"; shift; done\n`,
    );
    await Promise.all([chmod(join(fakes, 'npm'), 0o755), chmod(join(fakes, 'gh'), 0o755)]);

    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const { projectId, envId } = await projectWithEnv(api, owner.token, 'shop');
    Object.assign(o, { token: owner.token, projectId, envId });
    // The key, made by the person with the CLI (a session of their own, elsewhere than the job's HOME).
    const configDir = join(root, 'person');
    const login = await runInfracat(['login', '--email', owner.email, '--password-stdin'], {
      configDir,
      env: { INFRACAT_URL: ref.stack.url },
      input: owner.password,
    });
    expect(login.code, login.stderr).toBe(0);
    const createKey = async (name: string, scopes: string[]) => {
      const created = await runInfracat(
        ['api-keys', 'create', name, ...scopes.flatMap((s) => ['--scope', s]), '--project', 'shop', '-o', 'json'],
        { configDir },
      );
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout) as { key: string; scopes: string[]; project_ids: string[] };
      expect(key).toMatchObject({ scopes, project_ids: [projectId] });
      return key.key;
    };
    secrets.INFRACAT_PLAN_KEY = await createKey('ci-plan', ['read']);
    secrets.INFRACAT_APPLY_KEY = await createKey('ci-apply', ['read', 'write']);
  }, SLOW);
  afterAll(async () => {
    if (transcript.length) console.log(transcript.join('\n'));
    await rm(root, { recursive: true, force: true });
  });

  it(
    'a pull request gets the plan as a comment (read key); the merge applies it (write key); no session file anywhere',
    async () => {
      const pr = await runJob('plan', 'pull_request');
      expect(
        pr.map((r) => r.code),
        JSON.stringify(pr, null, 2),
      ).toEqual(pr.map(() => 0));
      expect(pr).toHaveLength(3);
      expect(await readFile(join(root, 'npm.log'), 'utf8')).toContain('npm install -g @infracat/client');
      expect(await readFile(join(root, 'gh.log'), 'utf8')).toContain('gh pr comment 17 --body-file plan.md');
      const comment = await readFile(join(root, 'comment.md'), 'utf8');
      expect(comment).toContain('#### infracat plan: shop / production');
      expect(comment).toMatch(/\+ service\s+api\s+create/);
      expect(comment).toMatch(/\+ service\s+db\s+create/);
      expect(comment).toContain('to create');
      expect(
        (await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })).body,
      ).toEqual([]);

      const merge = await runJob('apply', 'push');
      expect(
        merge.map((r) => r.code),
        JSON.stringify(merge, null, 2),
      ).toEqual([0, 0, 0]);
      expect(merge[2].out).toMatch(/succeeded/);
      const services = (
        await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })
      ).body as { name: string }[];
      expect(services.map((s) => s.name).sort()).toEqual(['api', 'db']);

      // Merged again without a change: the plan is empty and applying it changes nothing.
      const again = await runJob('apply', 'push');
      expect(again.map((r) => r.code)).toEqual([0, 0, 0]);
      expect(again[1].out).toContain('No changes');
      expect(await readdir(home)).toEqual([]);
    },
    SLOW,
  );

  it(
    'the read key in the merge job plans but its apply is refused with what it lacks (exit 1)',
    async () => {
      await writeFile(join(work, 'envs', 'production.yaml'), FILE.replace('port: 8080', 'port: 9090'));
      const merge = await runJob('apply', 'push', { ...secrets, INFRACAT_APPLY_KEY: secrets.INFRACAT_PLAN_KEY });
      expect(merge.map((r) => r.code)).toEqual([0, 0, 1]);
      expect(merge[1].out).toMatch(/~ service\s+api\s+update/);
      expect(merge[2].out).toContain("Error: This API key is read-only: writes need the 'write' scope (HTTP 403)");
      const api8080 = (
        await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })
      ).body as { name: string; port: number | null }[];
      expect(api8080.find((s) => s.name === 'api')?.port).toBe(8080);
      await writeFile(join(work, 'envs', 'production.yaml'), FILE);
    },
    SLOW,
  );

  it(
    'with a key, a chosen project and environment are used but not remembered: no session file is written, and the command says so',
    async () => {
      const configDir = join(root, 'keyed');
      const env = { INFRACAT_URL: ref.stack.url, INFRACAT_API_KEY: secrets.INFRACAT_APPLY_KEY };
      const used = await runInfracat(['use', 'shop', 'production'], { configDir, env });
      expect(used.code, used.stderr).toBe(0);
      expect(used.stdout + used.stderr).toContain(
        'Found shop/production (not remembered with INFRACAT_API_KEY: pass --project/--env, or set INFRACAT_PROJECT/INFRACAT_ENVIRONMENT).',
      );
      const created = await runInfracat(['envs', 'create', 'staging', '--project', 'shop'], { configDir, env });
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout + created.stderr).toContain(
        'Created environment shop/staging (not remembered with INFRACAT_API_KEY',
      );
      expect(await readdir(configDir).catch(() => [])).toEqual([]);
    },
    SLOW,
  );

  it(
    'each key shows when it was last used; a revoked key fails the job with what to do (exit 1)',
    async () => {
      const configDir = join(root, 'person');
      const keys = JSON.parse((await runInfracat(['api-keys', 'ls', '-o', 'json'], { configDir })).stdout) as {
        id: string;
        name: string;
        last_used_at: string | null;
      }[];
      expect(keys.map((k) => k.name).sort()).toEqual(['ci-apply', 'ci-plan']);
      expect(keys.every((k) => k.last_used_at !== null)).toBe(true);
      const table = await runInfracat(['api-keys', 'ls'], { configDir });
      expect(table.stdout).toContain('LAST_USED');
      for (const k of keys) expect(table.stdout).toContain(k.last_used_at!);
      const plan = keys.find((k) => k.name === 'ci-plan')!;
      const revoked = await runInfracat(['api-keys', 'revoke', plan.id], { configDir });
      expect([revoked.code, revoked.stderr.trim()]).toEqual([0, `Revoked API key ${plan.id}`]);
      const pr = await runJob('plan', 'pull_request');
      expect(pr.at(-1)!.code).toBe(1);
      expect(pr.at(-1)!.out).toContain(
        'INFRACAT_API_KEY: Invalid or expired API key. Create a new one (infracat api-keys create, signed in as yourself) and set it again.',
      );
    },
    SLOW,
  );
});
