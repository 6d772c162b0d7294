/** The billing context's public face: other contexts, routes and workers import only this. */
export * from './plans';
export * from './plan-catalogue';
export * from './providers';
export * from './subscriptions';
export * from './limits';
export * from './cost';
export * from './enterprise';
export * from './invoices';
export * from './invoice-entity';
export * from './checkout';
export * from './payment-webhook';
export * from './plan-changes';
export * from './payments';
export * from './api-keys';
export * from './api-key-exchange';
