import type { Connected, GlobalOptions } from './context.ts';
import { CliError } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isId = (ref: string) => UUID.test(ref);

/** One item of `items` named `ref` (its id, or its name ignoring case); a clear refusal when none or several. */
export function pick<T extends { id: string }>(
  items: T[],
  ref: string,
  nameOf: (item: T) => string | null | undefined,
  what: string,
  where = '',
): T {
  const byId = items.find((i) => i.id === ref);
  if (byId) return byId;
  const named = items.filter((i) => (nameOf(i) ?? '').toLowerCase() === ref.toLowerCase());
  if (named.length === 1) return named[0];
  if (named.length > 1)
    throw new CliError(
      `Several ${what}s are named '${ref}'${where}: use its id (${named.map((i) => i.id).join(', ')}).`,
    );
  throw new CliError(`No ${what} '${ref}'${where}.`);
}

export async function findProject(c: Connected, ref: string) {
  const { data } = await c.client.api.GET('/projects');
  return pick(data!, ref, (p) => p.name, 'project');
}

export async function findEnvironment(c: Connected, projectId: string, ref: string) {
  const { data } = await c.client.api.GET('/environments', { params: { query: { project_id: projectId } } });
  return pick(data!, ref, (e) => e.name, 'environment', ' in this project');
}

export interface Target {
  project: { id: string; name: string };
  environment: { id: string; name: string };
}

/**
 * The project and environment a command works in: `--project`/`--env`, else `INFRACAT_PROJECT` /
 * `INFRACAT_ENVIRONMENT`, else what `infracat use` chose (names or ids).
 */
export async function target(c: Connected, opts: GlobalOptions, needEnv = true): Promise<Target> {
  const projectRef = opts.project || process.env.INFRACAT_PROJECT;
  const envRef = opts.env || process.env.INFRACAT_ENVIRONMENT;
  let project = c.session.project;
  if (projectRef && projectRef !== project?.id && projectRef !== project?.name) {
    const p = await findProject(c, projectRef);
    project = { id: p.id, name: p.name };
  }
  if (!project)
    throw new CliError('No project chosen: run `infracat use <project> [<environment>]`, or pass --project.');
  let environment = project.id === c.session.project?.id ? c.session.environment : undefined;
  if (envRef && envRef !== environment?.id && envRef !== environment?.name) {
    const e = await findEnvironment(c, project.id, envRef);
    environment = { id: e.id, name: e.name };
  }
  if (!environment && needEnv)
    throw new CliError('No environment chosen: run `infracat use <project> <environment>`, or pass --env.');
  return { project, environment: environment! };
}

const inEnv = (t: Target) => ({ project_id: t.project.id, environment_id: t.environment.id });
const where = (t: Target) => ` in ${t.project.name}/${t.environment.name}`;

export async function findService(c: Connected, t: Target, ref: string) {
  if (isId(ref))
    return (await c.client.api.GET('/services/{service_id}', { params: { path: { service_id: ref } } })).data!;
  const { data } = await c.client.api.GET('/services', { params: { query: { ...inEnv(t), name: ref, limit: 1000 } } });
  return pick(data!, ref, (s) => s.name, 'service', where(t));
}

export async function findFloor(c: Connected, t: Target, ref: string) {
  if (isId(ref))
    return (await c.client.api.GET('/service-floors/{floor_id}', { params: { path: { floor_id: ref } } })).data!;
  const { data } = await c.client.api.GET('/service-floors', { params: { query: { ...inEnv(t), hostname: ref } } });
  return pick(data!, ref, (f) => f.hostname, 'floor', where(t));
}

export async function findNetwork(c: Connected, t: Target, ref: string) {
  if (isId(ref))
    return (await c.client.api.GET('/networks/{network_id}', { params: { path: { network_id: ref } } })).data!;
  const { data } = await c.client.api.GET('/networks', { params: { query: { ...inEnv(t), q: ref } } });
  return pick(data!, ref, (n) => n.name, 'network', where(t));
}

/** A connection end written `service:<name>`, `floor:<hostname>` or a bare name (a service first, then a floor). */
export async function findEnd(
  c: Connected,
  t: Target,
  ref: string,
): Promise<{ type: 'service' | 'floor'; id: string }> {
  const [kind, ...rest] = ref.split(':');
  const name = rest.join(':');
  if (kind === 'service' && name) return { type: 'service', id: (await findService(c, t, name)).id };
  if (kind === 'floor' && name) return { type: 'floor', id: (await findFloor(c, t, name)).id };
  try {
    return { type: 'service', id: (await findService(c, t, ref)).id };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { type: 'floor', id: (await findFloor(c, t, ref)).id };
  }
}

export { inEnv };
