import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { newEnv } from '../helpers/catalog.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { enrolAuthenticator, runningClock, totpCode } from '../helpers/sign-in.ts';
import { runInfracat, type Run } from '../helpers/infracat-binary.ts';

/**
 * The real `infracat` binary (node_modules/.bin/infracat, as `npx infracat` runs it after
 * `npm ci`) against the local stack, as a person and a CI job use it. One account with an
 * authenticator; its session in a temporary config folder.
 */
const clock = runningClock();
const ref = useTestStack({}, { withS3: true, clock });
const api = client(() => ref.stack.url);
/** Runs `infracat args…` against the stack with a config folder; `input` goes to its stdin. */
const infracat = (args: string[], opts: { configDir: string; env?: Record<string, string>; input?: string }) =>
  runInfracat(args, { ...opts, env: { INFRACAT_URL: ref.stack.url, ...opts.env } });

const ENV_FILE = `apiVersion: infracatalog/v1
kind: Environment
spec:
  services:
    - name: api
      port: 9090
      tags: [prod]
    - name: db
    - name: cache
      port: 6379
  service_links:
    - from: api
      to: db
    - from: cache
      to: db
`;

describe('the infracat CLI', () => {
  let dir: string;
  let cli: (args: string[], input?: string) => Promise<Run>;
  const account = {
    email: '',
    password: '',
    token: '',
    projectId: '',
    envId: '',
    stagingId: '',
    projectName: '',
    secret: '',
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'infracat-'));
    cli = (args, input) => infracat(args, { configDir: join(dir, 'config'), input });
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    account.projectName = `shop-${Date.now().toString(36)}`;
    const { projectId, envId } = await projectWithEnv(api, owner.token, account.projectName);
    const stagingId = await newEnv(api, owner.token, projectId, 'staging');
    // Enrolled with the previous time step's code, so the current step's code signs in below. The
    // stack's clock is set back to the start of a step: the login has that step and the next (the
    // tolerance) to arrive in, however loaded the machine, with no wait for a step to begin.
    clock.advance(-(clock.now().getTime() % 30_000));
    const secret = await enrolAuthenticator(api, owner.token, new Date(clock.now().getTime() - 30_000));
    Object.assign(account, {
      email: owner.email,
      password: owner.password,
      token: owner.token,
      projectId,
      envId,
      stagingId,
      secret,
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--help works and lists every command with examples', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of [
      'login',
      'logout',
      'whoami',
      'use',
      'projects',
      'envs',
      'services',
      'floors',
      'networks',
      'connections',
      'impact',
      'export',
      'import',
      'plan',
      'apply',
      'audit',
      'watch',
      'webhooks',
    ]) {
      expect(help.stdout).toContain(`  ${cmd}`);
    }
    expect((await cli(['plan', '--help'])).stdout).toMatch(/Examples:\n\s+\$ infracat plan -f env\.yaml/);
  });

  it('login asks for the password, then the second factor, and keeps the session in a 0600 file', async () => {
    const code = await totpCode(account.secret, clock.now());
    const login = await cli(['login', '--email', account.email], `${account.password}\n${code}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('Password');
    expect(login.stderr).toContain('Authenticator code');
    expect(login.stderr).toContain(`Signed in to ${ref.stack.url} as ${account.email}`);
    const file = join(dir, 'config', 'session.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const session = JSON.parse(await readFile(file, 'utf8'));
    expect(session).toMatchObject({ url: ref.stack.url, email: account.email, refresh_token: expect.any(String) });
    const who = await cli(['whoami', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ email: account.email, url: ref.stack.url, project: null });
    // The refresh token rotated and was written back.
    expect(JSON.parse(await readFile(file, 'utf8')).refresh_token).not.toBe(session.refresh_token);
  });

  it('use chooses the project and environment by name; services create and ls work in it', async () => {
    const use = await cli(['use', account.projectName, 'production']);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stderr).toContain(`Using ${account.projectName}/production`);
    const projects = await cli(['projects', 'ls']);
    expect(projects.stdout).toContain(account.projectName);
    expect((await cli(['services', 'create', 'api', '--port', '8080', '--tag', 'prod'])).code).toBe(0);
    const db = await cli(['services', 'create', 'db', '-o', 'json']);
    expect(db.code, db.stderr).toBe(0);
    expect(JSON.parse(db.stdout)).toMatchObject({
      name: 'db',
      project_id: account.projectId,
      environment_id: account.envId,
    });
    const ls = await cli(['services', 'ls', '-o', 'json']);
    expect(JSON.parse(ls.stdout).map((s: { name: string; port: number | null }) => [s.name, s.port])).toEqual([
      ['api', 8080],
      ['db', null],
    ]);
    const table = await cli(['services', 'ls']);
    expect(table.stdout).toMatch(/NAME.*PORT/);
    expect(table.stdout).toMatch(/api.*8080/);
    const yaml = parse((await cli(['services', 'get', 'api', '-o', 'yaml'])).stdout);
    expect(yaml).toMatchObject({ name: 'api', port: 8080, tags: ['prod'] });
  });

  it("a refusal prints the service's detail, no stack trace, and exits non-zero", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const refused = await cli(['services', 'get', unknown]);
    const direct = await api.get(`/services/${unknown}`, { token: account.token });
    expect(direct.status).toBe(404);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Error: ${direct.body.detail} (HTTP 404)\n`);
    const invalid = await cli(['services', 'create', 'x', '--set', 'repository_url=ftp://example.com']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^Error: body\.repository_url: .+ \(HTTP 422\)\n$/);
    const missing = await cli(['services', 'get', 'nope']);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `Error: No service 'nope' in ${account.projectName}/production.\n`,
    ]);
    const bad = await cli(['services', 'ls', '-o', 'xml']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('xml');
  });

  it('plan shows the changes (exit 2); apply --yes imports them with progress; plan again is clean (exit 0)', async () => {
    const file = join(dir, 'env.yaml');
    await writeFile(file, ENV_FILE);
    const plan = await cli(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/\+ service\s+cache\s+create/);
    expect(plan.stdout).toMatch(/~ service\s+api\s+update\s+\(changed: port\)/);
    expect(plan.stdout).toMatch(/\+ service_link\s+api → db\s+create|\+ \w*link\w*\s+.*create/);
    expect(plan.stdout).not.toMatch(/\bdb\s+unchanged/); // unchanged ones only with --show-unchanged
    expect(plan.stdout).toMatch(/1 to create|\d+ to create/);
    const json = await cli(['plan', '-f', file, '-o', 'json', '--show-unchanged']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report.summary).toMatchObject({ update: 1, unchanged: 1, delete: 0, error: 0 });
    expect(report.items).toContainEqual({ kind: 'service', name: 'cache', action: 'create' });
    // Nothing was written by planning.
    expect(
      (
        await api.get(`/services?project_id=${account.projectId}&environment_id=${account.envId}`, {
          token: account.token,
        })
      ).body,
    ).toHaveLength(2);

    const apply = await cli(['apply', '-f', file, '--yes']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('import: succeeded');
    expect(apply.stdout).toMatch(/Import succeeded: \d+ created, 1 updated/);
    const services = await api.get(`/services?project_id=${account.projectId}&environment_id=${account.envId}`, {
      token: account.token,
    });
    expect(services.body.map((s: { name: string; port: number }) => [s.name, s.port])).toEqual([
      ['api', 9090],
      ['cache', 6379],
      ['db', null],
    ]);

    const clean = await cli(['plan', '-f', file]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain('No changes');
  });

  it('plan reports every problem with its line (exit 1), and --prune lists what the file leaves out as deletions', async () => {
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, ENV_FILE.replace('port: 6379', 'port: many'));
    const plan = await cli(['plan', '-f', broken]);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toMatch(/broken\.yaml:10\s+\/spec\/services\/2\/port/);
    const smaller = join(dir, 'smaller.yaml');
    await writeFile(
      smaller,
      ENV_FILE.replace('    - name: cache\n      port: 6379\n', '').replace('    - from: cache\n      to: db\n', ''),
    );
    const pruned = await cli(['plan', '-f', smaller, '--prune']);
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(2);
    expect(pruned.stdout).toMatch(/- service\s+cache\s+delete/);
    expect(pruned.stdout).toMatch(/- service_link\s+cache → db\s+delete/);
    // Without --prune the item is still listed, kept, and the plan is not clean.
    const kept = await cli(['plan', '-f', smaller]);
    expect(kept.code).toBe(2);
    expect(kept.stdout).toMatch(/\* service\s+cache\s+extra/);
  });

  it('impact shows the blast radius as a tree with distance and path', async () => {
    const impact = await cli(['impact', 'db']);
    expect(impact.code, impact.stderr).toBe(0);
    expect(impact.stdout).toMatch(/^db \(service\)\n/);
    expect(impact.stdout).toMatch(/[├└]─ api \(service\)\s+distance 1\s+via link\s+path: db → api/);
    expect(impact.stdout).toMatch(/[├└]─ cache \(service\)\s+distance 1/);
    expect(impact.stdout).toContain('2 services and 0 floors affected');
    const json = JSON.parse((await cli(['impact', 'db', '-o', 'json'])).stdout);
    expect(json.affected.map((a: { name: string }) => a.name).sort()).toEqual(['api', 'cache']);
  });

  it('export to a file, then import it into another environment: the same services', async () => {
    const out = join(dir, 'exported.yaml');
    const exported = await cli(['export', '--file', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(await readFile(out, 'utf8'));
    expect(doc.spec.services.map((s: { name: string }) => s.name)).toEqual(['api', 'cache', 'db']);
    const imported = await cli(['import', out, '--env', 'staging']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('import: succeeded');
    expect(imported.stdout).toMatch(/Import succeeded: \d+ created, 0 updated/);
    const staging = await cli(['services', 'ls', '--env', 'staging', '-o', 'json']);
    expect(JSON.parse(staging.stdout).map((s: { name: string; port: number | null }) => [s.name, s.port])).toEqual([
      ['api', 9090],
      ['cache', 6379],
      ['db', null],
    ]);
    expect((await cli(['plan', '-f', out, '--env', 'staging'])).code).toBe(0);
  });

  it('audit lists the changes; logout ends the session', async () => {
    const audit = await cli(['audit', '--limit', '5', '-o', 'json']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toHaveLength(5);
    const logout = await cli(['logout']);
    expect(logout.code, logout.stderr).toBe(0);
    const after = await cli(['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/^Error: Not signed in to .*infracat login/);
  });

  it('signs in without prompts from INFRACAT_EMAIL and INFRACAT_PASSWORD (and keeps that session)', async () => {
    const other = await signUp(api);
    await projectWithEnv(api, other.token, 'ci-project');
    const configDir = join(dir, 'ci');
    const env = {
      INFRACAT_EMAIL: other.email,
      INFRACAT_PASSWORD: other.password,
      INFRACAT_PROJECT: 'ci-project',
      INFRACAT_ENVIRONMENT: 'production',
    };
    const ls = await infracat(['services', 'ls', '-o', 'json'], { configDir, env });
    expect(ls.code, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    const created = await infracat(['services', 'create', 'from-ci', '-o', 'json'], { configDir, env });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(configDir, 'session.json'), 'utf8'))).toMatchObject({
      email: other.email,
      refresh_token: expect.any(String),
    });
    // The account with a second factor needs its code: a clear refusal without one.
    const noCode = await infracat(['whoami'], {
      configDir: join(dir, 'ci2'),
      env: { INFRACAT_EMAIL: account.email, INFRACAT_PASSWORD: account.password },
    });
    expect(noCode.code).toBe(1);
    expect(noCode.stderr).toContain('INFRACAT_TOTP_CODE');
  });

  it('projects create and envs create make and use them; connections join services by name and impact follows them', async () => {
    const other = await signUp(api);
    const configDir = join(dir, 'fresh');
    const run = (args: string[]) =>
      infracat(args, { configDir, env: { INFRACAT_EMAIL: other.email, INFRACAT_PASSWORD: other.password } });
    const project = await run(['projects', 'create', 'fresh-shop']);
    expect(project.code, project.stderr).toBe(0);
    expect(project.stderr).toMatch(/Created project fresh-shop .* and using it/);
    const env = await run(['envs', 'create', 'production', '-o', 'json']);
    expect(env.code, env.stderr).toBe(0);
    expect(JSON.parse(env.stdout)).toMatchObject({ name: 'production' });
    expect(JSON.parse((await run(['whoami', '-o', 'json'])).stdout)).toMatchObject({
      project: 'fresh-shop',
      environment: 'production',
    });
    for (const name of ['db', 'api', 'web']) expect((await run(['services', 'create', name])).code).toBe(0);
    expect((await run(['connections', 'create', 'api', 'db', '--direction', 'a_to_b', '--name', 'sql'])).code).toBe(0);
    expect((await run(['connections', 'create', 'service:web', 'service:api', '--direction', 'a_to_b'])).code).toBe(0);
    const listed = await run(['connections', 'ls']);
    expect(listed.stdout).toMatch(/api\s+│ a_to_b\s+│ db\s+│ sql/);
    const self = await run(['connections', 'create', 'api', 'api']);
    expect([self.code, self.stderr]).toEqual([
      1,
      'Error: body.b_id: An entity may not be connected to itself (HTTP 422)\n',
    ]);
    const impact = await run(['impact', 'db']);
    expect(impact.stdout).toMatch(/└─ web \(service\)\s+distance 2\s+via connection\s+path: db → api → web/);
  });
}, 120_000);
