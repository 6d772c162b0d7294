/** The billing context's public face: other contexts, routes and workers import only this. */
export { FREE_PLAN_ID, listPublicPlans, getPlan, resetPlanCache, type Plan } from './plans.ts';
export { planEntity } from './plan-entity.ts';
export { PLAN_CATALOGUE, seedPlans } from './plan-catalogue.ts';
export { PROVIDERS } from './providers.ts';
export {
  listSubscriptions,
  activePlan,
  currentOf,
  NO_ACTIVE_SUBSCRIPTION,
  currentSubscription,
  toSubscriptionOut,
  activeFeatures,
  startingSubscription,
} from './subscriptions.ts';
export {
  PROJECTS_QUOTA,
  ENVIRONMENTS_QUOTA,
  SERVICES_QUOTA,
  PROJECT_USERS_QUOTA,
  CUSTOM_ROLES_QUOTA,
  API_KEYS_QUOTA,
  quotaOf,
  quotaReached,
  quotaLimit,
  requireRoom,
  takeQuotaStep,
} from './limits.ts';
export { RATE_CARD, SERVER_SPEC_MAX, serverUsage, sumUsage, type ServerSpec } from './cost.ts';
export { requestEnterprise } from './enterprise.ts';
export { listInvoices, getInvoice, invoicePage } from './invoices.ts';
export { invoiceView, invoiceDetailView } from './invoice-entity.ts';
export {
  checkoutJobMessage,
  changeProviderPlanJobMessage,
  PLAN_NOT_FOUND,
  PAID_PLANS_IN_BETA,
  PLAN_BY_ARRANGEMENT,
  ALREADY_ON_PLAN,
  choosePlan,
  runCheckoutJob,
  cancelAtProvider,
  changePlanAtProvider,
  checkoutStatus,
  billingPortal,
  type ChangeProviderPlanJobMessage,
} from './checkout.ts';
export { receivePaymentWebhook } from './payment-webhook.ts';
export {
  cancelProviderSubscriptionJobMessage,
  isDowngrade,
  isFreePlan,
  SUBSCRIPTION_CHANGED,
  retryWhileChanging,
  planChangeSteps,
  switchTo,
} from './plan-changes.ts';
export {
  LOCAL_PAGES,
  openToken,
  signLocalEvent,
  localEventId,
  type PaymentEvent,
  type LocalCheckout,
  type LocalPortal,
} from './payments/index.ts';
export {
  API_KEY_SETS,
  apiKeyEntity,
  apiKeyView,
  apiKeyOut,
  apiKeyCreatedOut,
  featureMissing,
  requireFeatures,
  API_KEY_NOT_FOUND,
  API_KEY_SET_RULES,
  API_KEY_FEATURES,
  createApiKeyBody,
  listApiKeys,
  createApiKey,
  revokeApiKey,
  type ApiKeySet,
  type ApiKeyOut,
} from './api-keys.ts';
export { exchangeApiKeyBody, keyTokenOut, exchangeApiKey } from './api-key-exchange.ts';
