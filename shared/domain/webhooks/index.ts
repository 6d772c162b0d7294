/** The webhooks context's public face: registration, the delivery log, delivery and its retry sweep. */
export { webhookView, webhookOut } from './webhook-entity.ts';
export {
  FORBIDDEN_WEBHOOKS,
  MAX_WEBHOOKS_PER_PROJECT,
  WEBHOOK_LIMIT_REACHED,
  NOT_A_URL,
  createWebhookBody,
  updateWebhookBody,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
} from './webhooks.ts';
export { deliverySummaryOut, deliveryOut, listDeliveries, getDelivery, redeliver, pingWebhook } from './deliveries.ts';
export { deliverEvent, sweepWebhookRetries } from './delivery.ts';
export { URL_NOT_ALLOWED, useResolver, checkTarget } from './ssrf.ts';
