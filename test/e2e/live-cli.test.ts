import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { INFRACAT_BIN } from '../helpers/infracat-binary.ts';

const ref = useTestStack({ LOCAL_STREAM_POLL_MS: '100' });
const api = client(() => ref.stack.url);
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('infracat watch', () => {
  it('prints each change of the environment as it comes, one JSON object a line with -o json', async () => {
    const o = await ownerWithEnv(api);
    const dir = await mkdtemp(join(tmpdir(), 'infracat-watch-'));
    dirs.push(dir);
    const child = spawn(INFRACAT_BIN, ['watch', '-o', 'json'], {
      cwd: dir,
      env: {
        ...process.env,
        INFRACAT_CONFIG_DIR: join(dir, 'config'),
        INFRACAT_URL: ref.stack.url,
        INFRACAT_EMAIL: o.owner.email,
        INFRACAT_PASSWORD: o.owner.password,
        INFRACAT_PROJECT: o.projectId,
        INFRACAT_ENVIRONMENT: o.envId,
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    const lines = () => stdout.split('\n').filter(Boolean);
    const until = (what: () => boolean, label: string) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          if (what()) return resolve();
          if (Date.now() - started > 60_000) return reject(new Error(`${label}; stderr: ${stderr}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    child.stderr.on('data', (d) => (stderr += d));
    await until(() => stderr.includes('live'), 'the watch never went live');
    const svc = await createService(api, o.token, o.projectId, o.envId, { name: 'watched' });
    await api.patch(`/services/${svc.id}`, { name: 'watched-2' }, { token: o.token });
    await until(() => lines().length >= 2, 'two changes never printed');
    child.kill('SIGINT');
    const [created, updated] = lines().map((l) => JSON.parse(l));
    expect(created).toMatchObject({ kind: 'service', id: svc.id, op: 'created', item: { name: 'watched' } });
    expect(updated).toMatchObject({ id: svc.id, op: 'updated', seq: created.seq + 1, item: { name: 'watched-2' } });
  }, 120_000);
});
