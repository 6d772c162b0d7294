import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { runInfracat, type Run } from '../helpers/infracat-binary.ts';

/** `infracat` carries custom fields: `--field key=value` on create and update, `--cf key=value` filters on `services ls`, `floors ls` and `networks ls`. */
const ref = useTestStack();
const api = client(() => ref.stack.url);

describe('infracat and custom fields', () => {
  let dir: string;
  let cli: (...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'infracat-cf-'));
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Team');
    const made = await api.post(
      `/projects/${projectId}/custom-fields`,
      {
        key: 'tier',
        label: 'Tier',
        type: 'select',
        choices: ['gold', 'silver'],
        applies_to: ['service', 'service_floor', 'network'],
      },
      { token },
    );
    expect(made.status, made.text).toBe(201);
    const env = {
      INFRACAT_URL: ref.stack.url,
      INFRACAT_EMAIL: owner.email,
      INFRACAT_PASSWORD: owner.password,
      INFRACAT_PROJECT: projectId,
      INFRACAT_ENVIRONMENT: envId,
    };
    cli = (...args) => runInfracat(args, { configDir: join(dir, 'config'), env });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('sets values with --field, refuses a bad one naming it, and filters with --cf', async () => {
    const created = await cli('services', 'create', 'api', '--field', 'tier=gold', '-o', 'json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).custom_fields).toEqual({ tier: 'gold' });
    expect((await cli('services', 'create', 'db', '--field', 'tier=silver', '-o', 'json')).code).toBe(0);
    const bad = await cli('services', 'update', 'db', '--field', 'tier=bronze');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('custom_fields.tier');
    const listed = await cli('services', 'ls', '--cf', 'tier=gold', '-o', 'json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toEqual(['api']);
    const removed = await cli('services', 'update', 'api', '--field', 'tier=null', '-o', 'json');
    expect(JSON.parse(removed.stdout).custom_fields).toEqual({});
  });

  it('filters floors and networks with --cf (repeatable: any of the values)', async () => {
    for (const [host, tier] of [
      ['vm-gold', 'gold'],
      ['vm-silver', 'silver'],
    ]) {
      const made = await cli('floors', 'create', host, '--type', 'vm', '--field', `tier=${tier}`, '-o', 'json');
      expect(made.code, made.stderr).toBe(0);
    }
    expect((await cli('floors', 'create', 'vm-none', '--type', 'vm')).code).toBe(0);
    for (const [name, cidr, tier] of [
      ['lan-gold', '10.1.0.0/24', 'gold'],
      ['lan-silver', '10.2.0.0/24', 'silver'],
    ]) {
      const made = await cli('networks', 'create', name, '--cidr', cidr, '--field', `tier=${tier}`);
      expect(made.code, made.stderr).toBe(0);
    }
    const names = async (args: string[], field: string) => {
      const run = await cli(...args, '-o', 'json');
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout)
        .map((row: Record<string, string>) => row[field])
        .sort();
    };
    expect(await names(['floors', 'ls', '--cf', 'tier=gold'], 'hostname')).toEqual(['vm-gold']);
    expect(await names(['floors', 'ls', '--cf', 'tier=gold', '--cf', 'tier=silver'], 'hostname')).toEqual([
      'vm-gold',
      'vm-silver',
    ]);
    expect(await names(['floors', 'ls'], 'hostname')).toEqual(['vm-gold', 'vm-none', 'vm-silver']);
    expect(await names(['networks', 'ls', '--cf', 'tier=silver'], 'name')).toEqual(['lan-silver']);
    expect(await names(['networks', 'ls', '--cf', 'tier=bronze'], 'name')).toEqual([]);
    const bad = await cli('networks', 'ls', '--cf', 'Bad=1');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('cf.Bad');
  });
});
