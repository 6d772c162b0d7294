/** The catalog context's public face: other contexts, routes and workers import only this. */
export { MAX_ATTACHED_NETWORKS, attachedNetworks, replaceAttachedNetworks } from './attachments';
export { ipv4Address, ipv4Cidr, ipv4Range, repeatable } from './fields';
export { floorType, floorEntity, floorView, type Floor, type FloorOut } from './floor-entity';
export { FLOOR_NOT_FOUND } from './floor-refusals';
export {
  floorFields,
  createFloorBody,
  updateFloorBody,
  newFloorSteps,
  floorKey,
  floorFieldsSteps,
  floorCreatedStep,
  auditedFloor,
  createFloor,
  updateFloor,
} from './floors';
export { storedFloorsOf, matchesFloorFilters, listFloors, getFloor } from './floor-reads';
export { deleteFloor } from './floor-delete';
export { networkEntity, networkView, networkOut, type Network } from './network-entity';
export {
  createNetworkBody,
  updateNetworkBody,
  checkGateway,
  newNetworkSteps,
  createNetwork,
  networkFilter,
  listNetworks,
  getNetwork,
  updateNetwork,
  deleteNetwork,
} from './networks';
export { storedRepositoryDep, serviceEntity, serviceView, type Service, type ServiceOut } from './service-entity';
export { SERVICE_NOT_FOUND, FORBIDDEN_VIEW as SERVICES_FORBIDDEN_VIEW } from './service-refusals';
export {
  serviceFields,
  createServiceBody,
  updateServiceBody,
  SERVERLESS,
  serviceHintsStep,
  newServiceSteps,
  createService,
  getService,
  repositoryDeps,
  servicesAnswered,
  listServices,
  updateService,
  deleteService,
} from './services';
export type { Listable, Listing } from './listing';
export {
  serviceListing,
  floorListing,
  networkListing,
  LISTINGS,
  type ServiceListing,
  type FloorListing,
  type NetworkListing,
} from './listings';
export { chainPlace, connectionListing, linkListing } from './topology/listings';
export { backfillListings, rebuildProjectListings, reindexSearch } from './listing-backfill';
export { search, lookupsFor } from './search/search';
export { SEARCH_KINDS, searchEntries } from './search/entries';
export {
  DEFAULT_MAX_DEPTH,
  MAX_MAX_DEPTH,
  impactGraph,
  computeBlastRadius,
  blastRadiusOf,
  type Topology,
} from './topology/blast-radius';
export {
  DIRECTIONS,
  GROUP_KINDS,
  connectionName,
  connectionEntity,
  connectionView,
  connectionOut,
  chainEntity,
  type Direction,
  type Connection,
  type Chain,
} from './topology/connection-entity';
export {
  MAX_BATCH_CONNECTIONS,
  MAX_CHAIN_CONNECTIONS,
  MISSING_MANAGE,
  MISSING_VIEW,
  CHAIN_FULL,
  putConnectionSteps,
  putChainSteps,
  auditedConnection,
  chainShown,
  pairKey,
  END_PROBE,
  connectionsVersionStep,
  createConnection,
  createConnectionBatch,
  listConnections,
  byConnectionOrder,
  updateConnection,
  updateChain,
  deleteConnection,
  deleteChain,
  type ConnectionSpec,
} from './topology/connections';
export { ENTITY_TYPES, entityKey } from './topology/ends';
export { linkEntity, linkView, linkOut, type Link } from './topology/link-entity';
export { newLinkSteps, createLink, listLinks, deleteLink } from './topology/links';
export { NODE_KINDS, EDGE_KINDS, environmentTopology } from './topology/environment-topology';
export { applyTopologyChanges, topologyChangesOf } from './topology/snapshot/upkeep';
export type { TopologyChange } from './topology/snapshot/rows';
export { removeMemberAndReferences, deleteProjectUserAndReferences } from './people-references';
export { customFieldView, CUSTOM_FIELD_KEY, type CustomFieldKind } from './custom-fields/definition-entity';
export { createCustomFieldBody, updateCustomFieldBody } from './custom-fields/definition-rules';
export { listCustomFields, createCustomField, updateCustomField } from './custom-fields/definitions';
export {
  deleteCustomField,
  getCustomFieldJob,
  runCustomFieldJob,
  customFieldJobMessage,
} from './custom-fields/deletion';
export { customFieldJobView } from './custom-fields/job-entity';
export {
  readCatalogue,
  catalogueUnchangedStep,
  defaultValues,
  readValueRules,
  documentValues,
  customFieldsInput,
  type ValueRules,
} from './custom-fields/catalogue';
export { withCustomFieldFilters, customFieldFilters } from './custom-fields/filters';
/** For the search index: an item's text, select and multiselect values as `custom_fields.<key>` texts. */
export { searchableCustomValues } from './search/custom-values';
