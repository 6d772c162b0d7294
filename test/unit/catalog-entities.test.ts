import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';
import { floorEntity, floorView, serviceEntity, serviceView } from '#domain/catalog';

const ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const NOW = '2026-01-01T00:00:00.000Z';

describe('catalog entities', () => {
  it('decode drops key and unknown attributes and fills what an older item lacks', () => {
    const raw = {
      PK: 'PROJECT#p',
      SK: 'FLOOR#e#f',
      type: 'floor',
      legacy_spec: { cpu: 2 },
      id: ID,
      project_id: ID,
      environment_id: ID,
      floor_type: 'vm',
      hostname: 'web-1',
      ip_addresses: null,
      created_at: NOW,
      updated_at: NOW,
    };
    expect(floorEntity.decode(raw)).toEqual({
      id: ID,
      project_id: ID,
      environment_id: ID,
      floor_type: 'vm',
      hostname: 'web-1',
      provider: null,
      provider_region: null,
      provider_zone: null,
      provider_instance_id: null,
      ip_address: null,
      ip_addresses: [],
      cpu: null,
      memory_mb: null,
      storage_gb: null,
      instances: null,
      tags: [],
      network_ids: [],
      custom_fields: {},
      cloud_account_id: null,
      last_seen_at: null,
      missing_since: null,
      created_at: NOW,
      updated_at: NOW,
      deleted_at: null,
    });
  });

  it('decode keeps stored values (archived_at only when present) and gives each item its own default lists', () => {
    const a = serviceEntity.decode({ id: ID, name: 'a', tags: ['x'], archived_at: NOW });
    const b = serviceEntity.decode({ id: ID, name: 'b' });
    expect(a.tags).toEqual(['x']);
    expect(a.archived_at).toBe(NOW);
    expect('archived_at' in b).toBe(false);
    b.links.push('https://example.com');
    expect(serviceEntity.decode({}).links).toEqual([]);
  });

  it('create fills defaults and encode writes the key and kind', () => {
    const floor = floorEntity.create({
      id: ID,
      project_id: ID,
      environment_id: ID,
      floor_type: 'container',
      cpu: 4,
      created_at: NOW,
      updated_at: NOW,
    });
    expect(floor).toMatchObject({
      floor_type: 'container',
      cpu: 4,
      hostname: null,
      tags: [],
      network_ids: [],
      deleted_at: null,
    });
    expect(floorEntity.encode({ PK: 'P', SK: 'S' }, floor)).toEqual({ PK: 'P', SK: 'S', type: 'floor', ...floor });
  });

  it('views answer in declared order, rename stored fields and take resolved ones', () => {
    const floor = floorEntity.create({
      id: ID,
      project_id: ID,
      environment_id: ID,
      floor_type: 'vm',
      created_at: NOW,
      updated_at: NOW,
    });
    const out = floorView.project(floor);
    expect(Object.keys(out)).toEqual(Object.keys(floorView.schema.shape));
    expect(out.type).toBe('vm');
    expect(out).not.toHaveProperty('floor_type');
    expect(out).not.toHaveProperty('network_ids');

    const service = serviceEntity.create({
      id: ID,
      name: 's',
      owner_user_id: ID,
      project_id: ID,
      environment_id: ID,
      created_at: NOW,
      updated_at: NOW,
    });
    const answer = serviceView.project(service, { type: 'serverless', group_name: 'g', subgroup_name: null });
    expect(Object.keys(answer).slice(8, 11)).toEqual(['group_name', 'subgroup_name', 'type']);
    expect(answer).toMatchObject({
      type: 'serverless',
      group_name: 'g',
      subgroup_name: null,
      links: [],
      repository_deps: [],
    });
    expect(serviceView.schema.safeParse(answer).success).toBe(true);
  });

  it('response schemas carry no defaults, and a view naming an unknown field is refused', () => {
    expect(floorView.schema.shape.tags.safeParse(undefined).success).toBe(false);
    const thing = defineEntity('thing', z.object({ id: z.string() }));
    expect(() => defineView(thing, { name: true } as never)).toThrow('thing view: no stored field name');
  });
});
