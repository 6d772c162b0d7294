/** The catalog context's public face: other contexts, routes and workers import only this. */
export * from './attachments';
export * from './fields';
export * from './floor-entity';
export * from './floors';
export * from './items';
export * from './network-entity';
export * from './networks';
export * from './service-entity';
export * from './services';
export * from './service-listing';
export * from './service-listing-backfill';
export * from './topology/blast-radius';
export * from './topology/connection-entity';
export * from './topology/connections';
export * from './topology/ends';
export * from './topology/link-entity';
export * from './topology/links';
