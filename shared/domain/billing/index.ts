/** The billing context's public face: other contexts, routes and workers import only this. */
export { FREE_PLAN_ID, listPublicPlans, getPlan, resetPlanCache, type Plan } from './plans';
export { planEntity } from './plan-entity';
export { PLAN_CATALOGUE, seedPlans } from './plan-catalogue';
export { PROVIDERS } from './providers';
export {
  listSubscriptions,
  activePlan,
  currentOf,
  NO_ACTIVE_SUBSCRIPTION,
  currentSubscription,
  toSubscriptionOut,
  activeFeatures,
  startingSubscription,
} from './subscriptions';
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
} from './limits';
export { RATE_CARD, SERVER_SPEC_MAX, serverUsage, sumUsage, type ServerSpec } from './cost';
export { requestEnterprise } from './enterprise';
export { listInvoices, getInvoice, invoicePage } from './invoices';
export { invoiceView, invoiceDetailView } from './invoice-entity';
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
} from './checkout';
export { receivePaymentWebhook } from './payment-webhook';
export {
  cancelProviderSubscriptionJobMessage,
  isDowngrade,
  isFreePlan,
  SUBSCRIPTION_CHANGED,
  retryWhileChanging,
  planChangeSteps,
  switchTo,
} from './plan-changes';
export {
  LOCAL_PAGES,
  openToken,
  signLocalEvent,
  localEventId,
  type PaymentEvent,
  type LocalCheckout,
  type LocalPortal,
} from './payments';
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
} from './api-keys';
export { exchangeApiKeyBody, keyTokenOut, exchangeApiKey } from './api-key-exchange';
