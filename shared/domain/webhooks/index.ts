/** The webhooks context's public face: registration, the delivery log, delivery and its retry sweep. */
export * from './webhook-entity';
export * from './webhooks';
export * from './deliveries';
export { deliverEvent, sweepWebhookRetries, RETRY_SCHEDULE_SECONDS, MAX_ATTEMPTS, DISABLE_AFTER_MS } from './delivery';
export { URL_NOT_ALLOWED, useResolver, checkTarget, type CheckedTarget } from './ssrf';
