import { keys } from '#db/keys';
import { batchGet, keyId } from '#db/batch-get';
import { isLive } from '#db/live';
import { queryPrefix } from '#db/query';
import { invalid, notFound } from '#shared/errors';
import { floorEntity, linkEntity, networkEntity, serviceEntity, type Floor, type Link, type Network, type Service } from '#domain/catalog';
import { ENV_NOT_IN_PROJECT, PROJECT_NOT_FOUND, type Environment, type Group, type Project, type Subgroup } from '#domain/tenancy';

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
}

/**
 * One read pass: the project and the environment (one BatchGet) in parallel with one Query per kind
 * of the environment's items (each follows its pages). Live items only (neither deleted nor
 * archived). A missing project is 404 'Project not found', an environment that is not a live one
 * of the project 400.
 */
export async function readEnvironment(projectId: string, envId: string): Promise<EnvironmentContents> {
  const projectKey = keys.project(projectId);
  const envKey = keys.environment(projectId, envId);
  const [items, groups, subgroups, floors, networks, services, links] = await Promise.all([
    batchGet([projectKey, envKey]),
    queryPrefix<Group>(projectId, keys.groupPrefix(envId)),
    queryPrefix<Subgroup>(projectId, keys.subgroupPrefix(envId)),
    queryPrefix(projectId, keys.floorPrefix(envId)),
    queryPrefix(projectId, keys.networkPrefix(envId)),
    queryPrefix(projectId, keys.servicePrefix(envId)),
    queryPrefix(projectId, keys.linkPrefix(envId)),
  ]);
  const project = items.get(keyId(projectKey)) as Project | undefined;
  const environment = items.get(keyId(envKey)) as Environment | undefined;
  if (!project || project.deleted_at) throw notFound(PROJECT_NOT_FOUND);
  if (!isLive(environment)) throw invalid(ENV_NOT_IN_PROJECT);
  return {
    project,
    environment: environment!,
    groups: groups.filter(isLive),
    subgroups: subgroups.filter(isLive),
    floors: floors.map(floorEntity.decode).filter(isLive),
    networks: networks.map(networkEntity.decode).filter(isLive),
    services: services.map(serviceEntity.decode).filter(isLive),
    links: links.map(linkEntity.decode).filter(isLive),
  };
}
