/**
 * Services: the applications and components of an environment (the entity: service-entity.ts).
 * Create, read, list, update, delete. Every function a route calls takes (ctx, input): the caller
 * is ctx.actor, and its access is loaded and checked here. This index is what the rest of the
 * catalog sees of them; the files behind it import each other directly.
 */
export { serviceFields, createServiceBody, updateServiceBody } from './input';
export { SERVERLESS } from './references';
export { serviceEventData } from './audit-and-events';
export { serviceHintsStep, newServiceSteps } from './hints';
export { createService } from './create';
export { getService, repositoryDeps, servicesAnswered } from './read';
export { matchesServiceFilters, listServices } from './list';
export { updateService } from './update';
export { deleteService } from './delete';
