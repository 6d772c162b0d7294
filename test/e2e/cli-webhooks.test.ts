import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useResolver } from '#domain/webhooks';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';
import { runInfracat, type Run } from '../helpers/infracat-binary.ts';

/**
 * With the real `infracat` binary against the local stack: webhooks managed from the
 * CLI, the ends' names in `connections -o json`, and shell completion scripts.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);
useResolver(async () => [{ address: '93.184.216.34', family: 4 }]); // every receiver name is a public address here

describe('infracat webhooks, connections -o json and completion', () => {
  let dir: string;
  let cli: (...args: string[]) => Promise<Run>;
  const ids = { projectId: '', envId: '', api: '', host: '' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'infracat-hooks-'));
    const { owner, token, projectId, envId } = await ownerWithEnv(api, 'Team');
    Object.assign(ids, { projectId, envId });
    ids.api = (await createService(api, token, projectId, envId, { name: 'api' })).id;
    ids.host = (await createFloor(api, token, projectId, envId, { hostname: 'host-a' })).id;
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

  it('creates, updates, rotates and deletes a webhook; the secret is shown on create and rotate', async () => {
    const created = await cli(
      'webhooks',
      'create',
      'https://receiver.example/hook',
      '--event',
      'service.created',
      '--event',
      'service.deleted',
      '-o',
      'json',
    );
    expect(created.code).toBe(0);
    const hook = JSON.parse(created.stdout);
    expect([hook.url, hook.events, hook.enabled, typeof hook.secret]).toEqual([
      'https://receiver.example/hook',
      ['service.created', 'service.deleted'],
      true,
      'string',
    ]);
    const updated = await cli('webhooks', 'update', hook.id, '--event', 'service.updated', '--disable', '-o', 'json');
    expect([updated.code, JSON.parse(updated.stdout).events, JSON.parse(updated.stdout).enabled]).toEqual([
      0,
      ['service.updated'],
      false,
    ]);
    const rotated = await cli('webhooks', 'rotate', hook.id, '-o', 'json');
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).secret).not.toBe(hook.secret);
    const nothing = await cli('webhooks', 'update', hook.id);
    expect([nothing.code, nothing.stderr.trim()]).toEqual([
      1,
      'Error: Nothing to change: pass --url, --event, --description, --enable or --disable.',
    ]);
    const removed = await cli('webhooks', 'rm', hook.id);
    expect([removed.code, removed.stderr.trim()]).toEqual([0, `Deleted webhook ${hook.id}`]);
    const listed = await cli('webhooks', 'ls', '--project', ids.projectId, '-o', 'json');
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('connections -o json names both ends beside their ids', async () => {
    expect((await cli('connections', 'create', 'api', 'floor:host-a', '--direction', 'a_to_b')).code).toBe(0);
    const listed = await cli('connections', 'ls', '-o', 'json');
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout);
    expect(row).toMatchObject({ a_id: ids.api, a_name: 'api', b_id: ids.host, b_name: 'host-a', direction: 'a_to_b' });
  });

  it('completion prints a script for bash, zsh and fish that knows the commands and their subcommands', async () => {
    const bash = await cli('completion', 'bash');
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _infracat infracat');
    expect(bash.stdout).toMatch(/webhooks\) words="ls deliveries redeliver create update rotate rm /);
    expect((await cli('completion', 'zsh')).stdout).toContain('compdef _infracat infracat');
    expect((await cli('completion', 'fish')).stdout).toContain(
      "complete -c infracat -n '__fish_seen_subcommand_from webhooks' -f -a 'ls deliveries redeliver create update rotate rm'",
    );
    const other = await cli('completion', 'powershell');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      "value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.",
    );
  });
});
