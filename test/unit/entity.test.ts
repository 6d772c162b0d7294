import { describe, expect, it } from 'vitest';
import { connectionEntity, connectionView, linkEntity, linkView, networkEntity, networkView } from '#domain/catalog';

describe('graph entities (networks, connections, links)', () => {
  it('decode an older connection with the defaults it lacks, and answer it in the API shape', () => {
    const old = {
      PK: 'P',
      SK: 'S',
      type: 'connection',
      id: 'c',
      project_id: 'p',
      environment_id: 'e',
      a_type: 'service',
      a_id: 'a',
      b_type: 'floor',
      b_id: 'b',
      created_at: 't',
      updated_at: 't',
    };
    expect(connectionView.project(connectionEntity.decode(old))).toStrictEqual({
      id: 'c',
      project_id: 'p',
      environment_id: 'e',
      a_type: 'service',
      a_id: 'a',
      b_type: 'floor',
      b_id: 'b',
      direction: 'none',
      chain_id: null,
      name: null,
      group_kind: null,
      created_at: 't',
      updated_at: 't',
      deleted_at: null,
    });
  });

  it('create a network with its defaults and write it with its key and kind; clients never see created_at', () => {
    const network = networkEntity.create({
      id: 'n',
      project_id: 'p',
      environment_id: 'e',
      name: 'core',
      cidr: '10.0.0.0/16',
      created_at: 't',
      updated_at: 't',
    });
    expect(network).toMatchObject({
      gateway: null,
      vlan_id: null,
      is_private: true,
      description: null,
      deleted_at: null,
    });
    expect(networkEntity.encode({ PK: 'P', SK: 'N' }, network)).toMatchObject({
      PK: 'P',
      SK: 'N',
      type: 'network',
      name: 'core',
    });
    expect(Object.keys(networkView.project(network))).not.toContain('created_at');
    expect(Object.keys(networkView.schema.shape)).toEqual(Object.keys(networkView.project(network)));
  });

  it('answer a link in the documented field order', () => {
    const link = linkEntity.decode({
      id: 'l',
      project_id: 'p',
      environment_id: 'e',
      from_service_id: 'a',
      to_service_id: 'b',
      created_at: 't',
      updated_at: 't',
      extra: 1,
    });
    expect(JSON.stringify(linkView.project(link))).toBe(
      '{"id":"l","project_id":"p","environment_id":"e","from_service_id":"a","to_service_id":"b","created_at":"t","updated_at":"t","deleted_at":null}',
    );
  });
});
