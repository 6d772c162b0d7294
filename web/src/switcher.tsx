import { useLocation } from 'preact-iso';
import { api, ok } from './api';
import { to } from './links';
import { useLoad } from './ui';

/** The project and environment in view: two selects that move to the same screen elsewhere. */
export function Switcher(props: { projectId: string; envId?: string }) {
  const { path, route } = useLocation();
  const projects = useLoad((signal) => ok(api.GET('/projects', { signal })), [props.projectId]);
  const envs = useLoad(
    (signal) => ok(api.GET('/environments', { params: { query: { project_id: props.projectId } }, signal })),
    [props.projectId],
  );
  const screen = path.endsWith('/topology') ? 'topology' : 'services';
  return (
    <div class="switcher">
      <label>
        <span>Project</span>
        <select value={props.projectId} onChange={(e) => route(to.project(e.currentTarget.value))}>
          {(projects.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
          {!projects.data && <option value={props.projectId}>…</option>}
        </select>
      </label>
      <label>
        <span>Environment</span>
        <select
          value={props.envId ?? ''}
          onChange={(e) => {
            const env = e.currentTarget.value;
            route(
              env
                ? screen === 'topology'
                  ? to.topology(props.projectId, env)
                  : to.services(props.projectId, env)
                : to.project(props.projectId),
            );
          }}
        >
          <option value="">All environments…</option>
          {(envs.data ?? []).map((env) => (
            <option key={env.id} value={env.id}>
              {env.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
