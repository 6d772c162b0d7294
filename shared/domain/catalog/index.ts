/** The catalog context's public face: other contexts, routes and workers import only this. */
export { MAX_ATTACHED_NETWORKS, attachedNetworks, replaceAttachedNetworks } from './attachments.ts';
export { ipv4Address, ipv4Cidr, ipv4Range, repeatable } from './fields.ts';
export { floorType, floorEntity, floorView, type Floor, type FloorOut } from './floor-entity.ts';
export { FLOOR_NOT_FOUND } from './floor-refusals.ts';
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
} from './floors.ts';
export { storedFloorsOf, matchesFloorFilters, listFloors, getFloor } from './floor-reads.ts';
export { deleteFloor } from './floor-delete.ts';
export { networkEntity, networkView, networkOut, type Network } from './network-entity.ts';
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
} from './networks.ts';
export { storedRepositoryDep, serviceEntity, serviceView, type Service, type ServiceOut } from './service-entity.ts';
export { SERVICE_NOT_FOUND, FORBIDDEN_VIEW as SERVICES_FORBIDDEN_VIEW } from './service-refusals.ts';
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
} from './services/index.ts';
export type { Listable, Listing } from './listing.ts';
export {
  serviceListing,
  floorListing,
  networkListing,
  LISTINGS,
  type ServiceListing,
  type FloorListing,
  type NetworkListing,
} from './listings.ts';
export { chainPlace, connectionListing, linkListing } from './topology/listings.ts';
export { backfillListings, rebuildProjectListings, reindexSearch } from './listing-backfill.ts';
export { search, lookupsFor } from './search/search.ts';
export { SEARCH_KINDS, searchEntries } from './search/entries.ts';
export {
  DEFAULT_MAX_DEPTH,
  MAX_MAX_DEPTH,
  impactGraph,
  computeBlastRadius,
  blastRadiusOf,
  type Topology,
} from './topology/blast-radius.ts';
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
} from './topology/connection-entity.ts';
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
} from './topology/connections/index.ts';
export { ENTITY_TYPES, entityKey } from './topology/ends.ts';
export { linkEntity, linkView, linkOut, type Link } from './topology/link-entity.ts';
export { newLinkSteps, createLink, listLinks, deleteLink } from './topology/links.ts';
export { NODE_KINDS, EDGE_KINDS, environmentTopology } from './topology/environment-topology.ts';
export { applyTopologyChanges, topologyChangesOf } from './topology/snapshot/upkeep.ts';
export type { TopologyChange } from './topology/snapshot/rows.ts';
export { removeMemberAndReferences, deleteProjectUserAndReferences } from './people-references.ts';
export { customFieldView, CUSTOM_FIELD_KEY, type CustomFieldKind } from './custom-fields/definition-entity.ts';
export { createCustomFieldBody, updateCustomFieldBody } from './custom-fields/definition-rules.ts';
export { listCustomFields, createCustomField, updateCustomField } from './custom-fields/definitions.ts';
export {
  deleteCustomField,
  getCustomFieldJob,
  runCustomFieldJob,
  customFieldJobMessage,
} from './custom-fields/deletion.ts';
export { customFieldJobView } from './custom-fields/job-entity.ts';
export {
  readCatalogue,
  catalogueUnchangedStep,
  defaultValues,
  readValueRules,
  documentValues,
  customFieldsInput,
  type ValueRules,
} from './custom-fields/catalogue.ts';
export { withCustomFieldFilters, customFieldFilters } from './custom-fields/filters.ts';
/** For the search index: an item's text, select and multiselect values as `custom_fields.<key>` texts. */
export { searchableCustomValues } from './search/custom-values.ts';
