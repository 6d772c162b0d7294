import type { Service } from '../service-entity';

/** What an audit entry records of a service: its stored fields as its readers see them (its networks are the attachments' entries). */
export const audited = ({ network_ids: _n, audit_head: _h, ...rest }: Service) => rest;
export const serviceAudit = (s: Service, action: 'create' | 'update' | 'delete') => ({
  action: `service.${action}`,
  entity_type: 'service',
  entity_id: s.id,
  project_id: s.project_id,
  environment_id: s.environment_id,
});

/** The data of service.* events (SPEC fixes service.created's: service_id, name, project_id, environment_id). */
export const serviceEventData = (s: Pick<Service, 'id' | 'name' | 'project_id' | 'environment_id'>) => ({
  service_id: s.id,
  name: s.name,
  project_id: s.project_id,
  environment_id: s.environment_id,
});
