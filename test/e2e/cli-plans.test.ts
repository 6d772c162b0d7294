import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putItem } from '#db/items';
import { keys } from '#db/keys';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { holdingFirstJob, writesItems } from '../helpers/jobs.ts';

/**
 * Exact plans, prune that prunes, saved plans and the environment's import lock, and the
 * CLI's handling of interruptions, large documents, standard input and export files. The real
 * `infracat` binary against the local stack.
 */
const ref = useTestStack({}, { withS3: true });

const api = client(() => ref.stack.url);
const BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'infracat');
const SLOW = 180_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `infracat args…`; `input` goes to stdin; `onStderr` sees its error stream as it comes (and may signal the child). */
function infracat(
  configDir: string,
  args: string[],
  opts: { input?: string; onStderr?: (text: string, kill: (s: NodeJS.Signals) => void) => void } = {},
): Promise<Run> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    INFRACAT_URL: ref.stack.url,
    INFRACAT_CONFIG_DIR: configDir,
  };
  for (const k of [
    'INFRACAT_EMAIL',
    'INFRACAT_PASSWORD',
    'INFRACAT_TOTP_CODE',
    'INFRACAT_PROJECT',
    'INFRACAT_ENVIRONMENT',
  ])
    delete env[k];
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`;
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env, cwd: dirname(configDir), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      opts.onStderr?.(stderr, (s) => child.kill(s));
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

const doc = (services: string[], connections: string, extra = '') => `apiVersion: infracatalog/v1
kind: Environment
spec:
  services:
${services.map((s) => `    - name: ${s}\n`).join('')}  connections:
${connections}${extra}`;
const API_DB = (direction: string) =>
  `    - a: { service: api }\n      b: { service: db }\n      direction: ${direction}\n`;
const CACHE_DB = '    - a: { service: cache }\n      b: { service: db }\n      direction: a_to_b\n';

describe('infracat plan and apply: exact plans, saved plans, locks', () => {
  let dir: string;
  let cli: (args: string[], opts?: Parameters<typeof infracat>[2]) => Promise<Run>;
  const o = { token: '', projectId: '', envId: '', userId: '', projectName: '' };
  const inEnv = () => `project_id=${o.projectId}&environment_id=${o.envId}`;
  const connections = async () =>
    (await api.get(`/service-connections?${inEnv()}`, { token: o.token })).body as {
      id: string;
      a_id: string;
      b_id: string;
      direction: string;
    }[];
  const services = async () =>
    (await api.get(`/services?${inEnv()}&limit=1000`, { token: o.token })).body as { id: string; name: string }[];
  const file = (name: string, text: string) => writeFile(join(dir, name), text).then(() => join(dir, name));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'infracat-plans-'));
    cli = (args, opts) => infracat(join(dir, 'config'), args, opts);
    const owner = await signUp(api);
    await setPlan(owner.id, 'Enterprise+');
    const name = `plans-${Date.now().toString(36)}`;
    const { projectId, envId } = await projectWithEnv(api, owner.token, name);
    Object.assign(o, { token: owner.token, projectId, envId, userId: owner.id, projectName: name });
    const login = await cli(['login', '--email', owner.email], { input: `${owner.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect((await cli(['use', name, 'production'])).code).toBe(0);
  }, SLOW);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'a direction edit updates the connection in place; a connection left out of the file is listed (exit 2) and --prune deletes it',
    async () => {
      const first = await file('env.yaml', doc(['api', 'db', 'cache'], API_DB('a_to_b') + CACHE_DB));
      const applied = await cli(['apply', '-f', first, '--yes']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(await connections()).toHaveLength(2);

      const turned = await file('turned.yaml', doc(['api', 'db', 'cache'], API_DB('both') + CACHE_DB));
      const plan = await cli(['plan', '-f', turned]);
      expect(plan.code, plan.stderr).toBe(2);
      expect(plan.stdout).toMatch(/~ service_connection\s+.*update\s+\(changed: direction\)/);
      expect((await cli(['apply', '-f', turned, '--yes'])).code).toBe(0);
      const after = await connections();
      expect(after).toHaveLength(2);
      const ids = new Map((await services()).map((s) => [s.name, s.id]));
      expect(
        after.find((c) => [c.a_id, c.b_id].sort().join() === [ids.get('api'), ids.get('db')].sort().join())?.direction,
      ).toBe('both');

      const without = await file('without.yaml', doc(['api', 'db', 'cache'], API_DB('both')));
      const listed = await cli(['plan', '-f', without]);
      expect(listed.code, listed.stdout + listed.stderr).toBe(2);
      expect(listed.stdout).toMatch(/\* service_connection\s+cache – db\s+extra/);
      const kept = await cli(['apply', '-f', without, '--yes']);
      expect(kept.code, kept.stderr).toBe(0);
      expect(kept.stderr + kept.stdout).toContain('Left 1 service_connection that the file does not have');
      expect(await connections()).toHaveLength(2);
      const pruned = await cli(['apply', '-f', without, '--yes', '--prune']);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stdout).toContain('Deleted 1 service_connection.');
      expect(await connections()).toHaveLength(1);
      expect((await cli(['plan', '-f', without])).code).toBe(0);
    },
    SLOW,
  );

  it(
    'plan exits 2 when the environment holds an item the file lacks, with or without --prune, problems or not',
    async () => {
      const without = join(dir, 'without.yaml');
      expect(
        (
          await api.post(
            '/services',
            { project_id: o.projectId, environment_id: o.envId, name: 'stray' },
            { token: o.token },
          )
        ).status,
      ).toBe(201);
      const plain = await cli(['plan', '-f', without]);
      expect(plain.code, plain.stderr).toBe(2);
      expect(plain.stdout).toMatch(/\* service\s+stray\s+extra/);
      const prune = await cli(['plan', '-f', without, '--prune', '-o', 'json']);
      expect(prune.code).toBe(2);
      expect(JSON.parse(prune.stdout).summary).toMatchObject({ delete: 1, create: 0, update: 0 });
      // A problem in the file does not hide the deletion (exit 1 for the problem).
      const broken = await file(
        'broken.yaml',
        (await readFile(without, 'utf8')).replace('direction: both', 'direction: sideways'),
      );
      const problem = await cli(['plan', '-f', broken, '--prune']);
      expect(problem.code).toBe(1);
      expect(problem.stdout).toMatch(/- service\s+stray\s+delete/);
      // Standard input: `-f -`.
      const piped = await cli(['plan', '-f', '-', '--prune'], { input: await readFile(without, 'utf8') });
      expect(piped.code, piped.stderr).toBe(2);
      expect(piped.stdout).toMatch(/- service\s+stray\s+delete/);
    },
    SLOW,
  );

  it(
    "a saved plan applies exactly; applied after someone else's change it is refused, writing nothing",
    async () => {
      const without = join(dir, 'without.yaml');
      const saved = join(dir, 'plan.json');
      const plan = await cli(['plan', '-f', without, '--prune', '-o', saved]);
      expect(plan.code, plan.stderr).toBe(2);
      expect(JSON.parse(await readFile(saved, 'utf8'))).toMatchObject({
        fingerprint: expect.stringMatching(/^sha256:/),
        prune: true,
        extras: [{ kind: 'service', name: 'stray' }],
      });
      expect(
        (
          await api.post(
            '/services',
            { project_id: o.projectId, environment_id: o.envId, name: 'meanwhile' },
            { token: o.token },
          )
        ).status,
      ).toBe(201);
      const stale = await cli(['apply', saved]);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toContain(
        'The environment changed since the plan was made: nothing was written. Plan again',
      );
      expect((await services()).map((s) => s.name).sort()).toEqual(['api', 'cache', 'db', 'meanwhile', 'stray']);

      const fresh = await cli(['plan', '-f', without, '--prune', '--out', saved]);
      expect(fresh.code).toBe(2);
      const applied = await cli(['apply', saved]);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect((await services()).map((s) => s.name).sort()).toEqual(['api', 'cache', 'db']);
    },
    SLOW,
  );

  it(
    'two imports at once: one runs, the other is refused with 409 naming the holder and job; a lock whose job died does not block',
    async () => {
      const many = Array.from({ length: 300 }, (_, i) => `svc-${i}`);
      const big = doc(['api', 'db', 'cache', ...many], API_DB('both'));
      const body = new FormData();
      body.set('project_id', o.projectId);
      body.set('environment_id', o.envId);
      body.set('file', new Blob([big], { type: 'application/yaml' }), 'big.yaml');
      // The first import's job waits until the second has been refused (a loaded machine would otherwise finish it first).
      const started = await holdingFirstJob(async (release) => {
        const first = await fetch(`${ref.stack.url}/impex/import`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${o.token}` },
        }).then((r) => r.json() as Promise<{ job_id: string }>);
        const refused = await fetch(`${ref.stack.url}/impex/import`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${o.token}` },
        });
        expect(refused.status).toBe(409);
        expect(await refused.json()).toMatchObject({
          detail: expect.stringContaining(`job ${first.job_id}`),
          lock: { holder: expect.stringContaining('@'), job_id: first.job_id, since: expect.any(String) },
        });
        const second = await cli([
          'apply',
          '-f',
          await file('small.yaml', doc(['api', 'db', 'cache', 'other'], API_DB('both'))),
          '--yes',
        ]);
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`job ${first.job_id}`);
        expect(second.stderr).toContain('(HTTP 409)');
        release();
        return first;
      });
      const watched = await cli(['jobs', 'watch', started.job_id]);
      expect(watched.code, watched.stderr).toBe(0);
      expect(watched.stdout).toMatch(/Import succeeded: 300 created/);
      const names = (await services()).map((s) => s.name);
      expect(names).toHaveLength(303);
      expect(names).not.toContain('other');

      // A lock left by a job that died: its lease ran out, so it blocks nobody.
      const past = new Date(Date.now() - 60_000).toISOString();
      await putItem({
        ...keys.importLock(o.projectId, o.envId),
        type: 'lease',
        holder: 'ghost@example.com',
        owner: 'dead-job',
        since: past,
        expires_at: past,
      });
      const after = await cli(['apply', '-f', join(dir, 'small.yaml'), '--yes']);
      expect(after.code, after.stderr).toBe(0);
      expect((await services()).map((s) => s.name)).toContain('other');
    },
    SLOW,
  );

  it(
    'Ctrl-C during apply prints the job id and how to follow it; the job goes on',
    async () => {
      const more = Array.from({ length: 300 }, (_, i) => `more-${i}`);
      const text = doc(['api', 'db', 'cache', 'other', ...more], API_DB('both'));
      let signalled = false;
      const run = await cli(['apply', '-f', await file('more.yaml', text), '--yes'], {
        onStderr: (err, kill) => {
          if (!signalled && /import: (queued|running)/.test(err)) {
            signalled = true;
            kill('SIGINT');
          }
        },
      });
      expect(run.code).toBe(130);
      const jobId = /infracat jobs watch ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
      expect(run.stderr, run.stderr).toContain(`the import goes on on the server (job ${jobId})`);
      expect(run.stderr).toContain(`Stop it:   infracat jobs cancel ${jobId}`);
      const watched = await cli(['jobs', 'watch', jobId!]);
      expect(watched.code, watched.stderr).toBe(0);
      expect(watched.stdout).toMatch(/Import succeeded/);
      // Finished: nothing to cancel.
      const late = await cli(['jobs', 'cancel', jobId!]);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain('The job has finished already (succeeded): there is nothing to cancel');
    },
    SLOW,
  );

  it(
    'jobs cancel: an import left queued after Ctrl-C is cancelled at once, and its lock is free for the next apply',
    async () => {
      const text = doc(['api', 'db', 'cache', 'other', 'cancelled-one'], API_DB('both'));
      const path = await file('cancel.yaml', text);
      const jobId = await holdingFirstJob(async (release) => {
        let signalled = false;
        const run = await cli(['apply', '-f', path, '--yes'], {
          onStderr: (err, kill) => {
            if (!signalled && /import: queued/.test(err)) {
              signalled = true;
              kill('SIGINT');
            }
          },
        });
        expect(run.code).toBe(130);
        const id = /infracat jobs cancel ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
        const cancelled = await cli(['jobs', 'cancel', id!]);
        expect(cancelled.code, cancelled.stderr).toBe(0);
        expect(cancelled.stderr).toContain(`Job ${id} cancelled.`);
        release();
        return id!;
      }, writesItems);
      const watched = await cli(['jobs', 'watch', jobId, '-q']);
      expect(watched.code).toBe(1);
      expect(watched.stdout).toMatch(/Import cancelled/);
      expect((await services()).map((s) => s.name)).not.toContain('cancelled-one');
      const next = await cli(['apply', '-f', path, '--yes', '-q']);
      expect(next.code, next.stderr).toBe(0);
      expect((await services()).map((s) => s.name)).toContain('cancelled-one');
    },
    SLOW,
  );

  it(
    'a 12 MB document applies through the upload URL by itself',
    async () => {
      const padding = `# ${'x'.repeat(1000)}\n`.repeat(13 * 1024);
      const text = doc(['api', 'db', 'cache', 'huge'], API_DB('both'), padding);
      expect(Buffer.byteLength(text)).toBeGreaterThan(12 * 1024 * 1024);
      const run = await cli(['import', await file('huge.yaml', text), '-q']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Import succeeded: 1 created/);
    },
    SLOW,
  );

  it(
    'export --file writes the file, -o picks the format; apply without --yes and no terminal advises --yes',
    async () => {
      const out = join(dir, 'exported.yaml');
      const exported = await cli(['export', '--file', out, '-q']);
      expect(exported.code, exported.stderr).toBe(0);
      expect(await readFile(out, 'utf8')).toContain('name: huge');
      const json = await cli(['export', '-o', 'json', '-q']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout).spec.services.map((s: { name: string }) => s.name)).toContain('huge');
      const wrong = await cli(['export', '-o', 'env.yaml']);
      expect([wrong.code, wrong.stderr]).toEqual([
        1,
        "Error: -o takes the document's format (yaml or json); to write a file, use --file env.yaml\n",
      ]);

      const asks = await cli(['apply', '-f', join(dir, 'small.yaml'), '--prune']);
      expect(asks.code).toBe(1);
      expect(asks.stderr).toContain('pass --yes to apply without asking');
      expect(asks.stderr).not.toContain('INFRACAT_EMAIL');
    },
    SLOW,
  );

  it(
    'two applies with --prune at once on one environment: one runs, the other is refused (409, the holder named), nothing interleaved; three rounds',
    async () => {
      const env = `race-${Date.now().toString(36)}`;
      expect((await api.post('/environments', { name: env, project_id: o.projectId }, { token: o.token })).status).toBe(
        201,
      );
      const used = await cli(['use', o.projectName, env]);
      expect(used.code, used.stderr).toBe(0);
      const envId = (
        (await api.get(`/environments?project_id=${o.projectId}`, { token: o.token })).body as {
          id: string;
          name: string;
        }[]
      ).find((e) => e.name === env)!.id;
      const names = async () =>
        (
          (await api.get(`/services?project_id=${o.projectId}&environment_id=${envId}&limit=1000`, { token: o.token }))
            .body as { name: string }[]
        )
          .map((x) => x.name)
          .sort();
      for (let round = 0; round < 3; round++) {
        expect(
          (
            await api.post(
              '/services',
              { project_id: o.projectId, environment_id: envId, name: `stray-${round}` },
              { token: o.token },
            )
          ).status,
        ).toBe(201);
        const want = { a: ['api', 'db', `a-${round}`], b: ['api', 'db', `b-${round}`] };
        const files = {
          a: await file(`race-a-${round}.yaml`, doc(want.a, API_DB('both'))),
          b: await file(`race-b-${round}.yaml`, doc(want.b, API_DB('a_to_b'))),
        };
        // The first import that writes waits until the other apply has ended (refused): they surely overlap.
        const runs = await holdingFirstJob(async (release) => {
          const a = cli(['apply', '-f', files.a, '--yes', '--prune', '-q']);
          const b = cli(['apply', '-f', files.b, '--yes', '--prune', '-q']);
          const first = await Promise.race([
            a.then((r) => ({ who: 'a' as const, r })),
            b.then((r) => ({ who: 'b' as const, r })),
          ]);
          release();
          return { a: await a, b: await b, refused: first.who };
        }, writesItems);
        const winner = runs.refused === 'a' ? 'b' : 'a';
        const lost = runs[runs.refused];
        expect(lost.code, lost.stdout + lost.stderr).toBe(1);
        expect(lost.stderr).toContain('(HTTP 409)');
        expect(lost.stderr).toMatch(
          /Another import into this environment is running \(started by \S+@\S+ since .*, job [0-9a-f-]{36}\)/,
        );
        expect(runs[winner].code, runs[winner].stdout + runs[winner].stderr).toBe(0);
        // Exactly the winner's file: its creates and its deletions, none of the other's.
        expect(await names()).toEqual([...want[winner]].sort());
      }
    },
    SLOW,
  );
});
