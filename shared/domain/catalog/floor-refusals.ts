/** Floors' refusals: SPEC's detail strings (a leaf: the floors' files and the attachments read them). */

export const FLOOR_NOT_FOUND = 'ServiceFloor not found';
export const FLOOR_FORBIDDEN = {
  create: 'Insufficient permissions to create service floor in this environment',
  manage: 'Insufficient permissions to manage service floors in this environment',
  view: 'Insufficient permissions to view service floors in this environment',
};
export const { create: FORBIDDEN_CREATE, manage: FORBIDDEN_MANAGE, view: FORBIDDEN_VIEW } = FLOOR_FORBIDDEN;
