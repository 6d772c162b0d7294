import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { queryPrefix } from '#db/query';
import { invalid, notFound } from '#shared/errors';
import { readValueRules, type ValueRules } from '#domain/catalog';
import {
  chainEntity,
  connectionEntity,
  floorEntity,
  linkEntity,
  networkEntity,
  serviceEntity,
  type Chain,
  type Connection,
  type Floor,
  type Link,
  type Network,
  type Service,
} from '#domain/catalog';
import {
  ENV_NOT_IN_PROJECT,
  PROJECT_NOT_FOUND,
  environmentEntity,
  groupEntity,
  projectEntity,
  subgroupEntity,
  type Environment,
  type Group,
  type Project,
  type Subgroup,
} from '#domain/tenancy';

/** Everything live in one environment, as export and import see it. */
export interface EnvironmentContents {
  project: Project;
  environment: Environment;
  groups: Group[];
  subgroups: Subgroup[];
  floors: Floor[];
  networks: Network[];
  services: Service[];
  links: Link[];
  connections: Connection[];
  chains: Chain[];
  /** The environment's `connections_version` when the connections were read (the import's connection writes move it on from there). */
  connectionsVersion: number;
  /** The project's custom field definitions, what the document's values are checked against. */
  valueRules: ValueRules;
}

/** The project and the live environment (one BatchGet): a missing project is 404 'Project not found', an environment that is not a live one of the project 400. */
export async function readEnvironmentHead(
  projectId: string,
  envId: string,
): Promise<{ project: Project; environment: Environment & { connections_version?: number } }> {
  const projectKey = keys.project(projectId);
  const envKey = keys.environment(projectId, envId);
  const items = await batchGet([projectKey, envKey]);
  const project = projectEntity.decodeFound(items.get(keyId(projectKey)));
  const environment = environmentEntity.decodeFound(items.get(keyId(envKey)));
  if (!project || !isLive(project)) throw notFound(PROJECT_NOT_FOUND);
  if (!isLive(environment)) throw invalid(ENV_NOT_IN_PROJECT);
  return { project, environment: environment! };
}

/**
 * One read pass: the project and the environment (one BatchGet) in parallel with one Query per kind
 * of the environment's items (each follows its pages). Live items only (neither deleted nor
 * archived). The connections are read after the environment, so that its `connections_version`
 * is never newer than the list (a write the version counts is in it). A missing project is 404 'Project not found', an environment that is not a live one
 * of the project 400.
 */
export async function readEnvironment(projectId: string, envId: string): Promise<EnvironmentContents> {
  const head = readEnvironmentHead(projectId, envId);
  const [
    { project, environment },
    groups,
    subgroups,
    floors,
    networks,
    services,
    links,
    connections,
    chains,
    valueRules,
  ] = await Promise.all([
    head,
    queryPrefix(projectId, keys.groupPrefix(envId)).then((items) => items.map(groupEntity.decode)),
    queryPrefix(projectId, keys.subgroupPrefix(envId)).then((items) => items.map(subgroupEntity.decode)),
    queryPrefix(projectId, keys.floorPrefix(envId)),
    queryPrefix(projectId, keys.networkPrefix(envId)),
    queryPrefix(projectId, keys.servicePrefix(envId)),
    queryPrefix(projectId, keys.linkPrefix(envId)),
    head.then(() => queryPrefix(projectId, keys.connectionPrefix(envId))),
    queryPrefix(projectId, keys.connectionChainPrefix(envId)),
    readValueRules(projectId),
  ]);
  return {
    project,
    environment,
    groups: groups.filter(isLive),
    subgroups: subgroups.filter(isLive),
    floors: floors.map(floorEntity.decode).filter(isLive),
    networks: networks.map(networkEntity.decode).filter(isLive),
    services: services.map(serviceEntity.decode).filter(isLive),
    links: links.map(linkEntity.decode).filter(isLive),
    connections: connections.map(connectionEntity.decode).filter(isLive),
    chains: chains.map(chainEntity.decode).filter(isLive),
    connectionsVersion: environment.connections_version ?? 0,
    valueRules,
  };
}
