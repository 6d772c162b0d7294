import type { Service } from '../service-entity.ts';

/** What an audit entry records of a service: its stored fields as its readers see them (its networks are the attachments' entries). */
export const audited = ({ network_ids: _n, audit_head: _h, ...rest }: Service) => rest;
export const serviceAudit = (s: Service, action: 'create' | 'update' | 'delete') => ({
  action: `service.${action}`,
  entity_type: 'service',
  entity_id: s.id,
  project_id: s.project_id,
  environment_id: s.environment_id,
});

/** The data of service.* events (SPEC fixes service.created's: service_id, name, project_id, environment_id), with its custom field values when it has any. */
export const serviceEventData = (
  s: Pick<Service, 'id' | 'name' | 'project_id' | 'environment_id'> & Partial<Pick<Service, 'custom_fields'>>,
) => ({
  service_id: s.id,
  name: s.name,
  project_id: s.project_id,
  environment_id: s.environment_id,
  ...withValues(s.custom_fields),
});

/** Custom field values in an event's data: present when the item has any (SPEC's data of an item without any stays as it was). */
export const withValues = (values: Service['custom_fields'] | undefined) =>
  values && Object.keys(values).length ? { custom_fields: values } : {};
