import { readTopology } from './topology-read';

/**
 * Reads started at start-up for the address opened, before its screen is on the page:
 * the topology's data is asked for as soon as the session is resumed, beside `/auth/me` and the
 * screen's code, instead of after both. The screen takes it once (`takeEarly`); a screen opened
 * later reads for itself.
 */
const started = new Map<string, Promise<unknown>>();

const TOPOLOGY_ADDRESS = /^\/p\/([^/]+)\/e\/([^/]+)\/topology$/;
export const topologyKey = (projectId: string, envId: string) => `topology:${projectId}:${envId}`;

/** The screen's code and data for `path` (when it has any worth starting early). */
export function startEarly(path: string, loadScreen: () => Promise<unknown>): void {
  const topology = TOPOLOGY_ADDRESS.exec(path);
  if (!topology) return;
  const [, project_id, environment_id] = topology;
  const read = readTopology({ project_id, environment_id });
  read.catch(() => {}); // the screen shows a refusal when it takes the read
  started.set(topologyKey(project_id, environment_id), read);
  void loadScreen().catch(() => {}); // the router loads it again, and shows what failed
}

/** A read started early under `key`, once; undefined when there is none. */
export function takeEarly<T>(key: string): Promise<T> | undefined {
  const read = started.get(key) as Promise<T> | undefined;
  started.delete(key);
  return read;
}
