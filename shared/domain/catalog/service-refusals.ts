/** Services' refusals: SPEC's detail strings (a leaf: the services' files, attachments and the topology read them). */

export const SERVICE_NOT_FOUND = 'Service not found';
export const SERVICE_FORBIDDEN = {
  create: 'Insufficient permissions to create service in this environment',
  manage: 'Insufficient permissions to manage services in this environment',
  view: 'Insufficient permissions to view services in this environment',
};
export const { create: FORBIDDEN_CREATE, manage: FORBIDDEN_MANAGE, view: FORBIDDEN_VIEW } = SERVICE_FORBIDDEN;
