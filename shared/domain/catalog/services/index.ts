/**
 * Services: the applications and components of an environment (the entity: service-entity.ts).
 * Create, read, list, update, delete. Every function a route calls takes (ctx, input): the caller
 * is ctx.actor, and its access is loaded and checked here. This index is what the rest of the
 * catalog sees of them; the files behind it import each other directly.
 */
export { serviceFields, createServiceBody, updateServiceBody } from './input.ts';
export { SERVERLESS } from './references.ts';
export { serviceEventData } from './audit-and-events.ts';
export { serviceHintsStep, newServiceSteps } from './hints.ts';
export { createService } from './create.ts';
export { getService, repositoryDeps, servicesAnswered } from './read.ts';
export { matchesServiceFilters, listServices } from './list.ts';
export { updateService } from './update.ts';
export { deleteService } from './delete.ts';
