import { api, ok, type Floor } from '../../api';
import { allServices } from '../../services';
import { to } from '../../links';
import { Loaded, Page, useLoad } from '../../ui';
import { Connections } from './connections';
import { orDash, useDetailActions } from './detail';
import { floorName, floorTypeLabel, locationOf } from './names';
import { NetworksForm } from './networks-form';
import { CustomFacts } from '../../custom-fields';

/** A server with the services it runs, its networks (changeable) and its connections; edit, delete. */
export function ServerDetail(props: { projectId: string; envId: string; serverId: string }) {
  const scope = { project_id: props.projectId, environment_id: props.envId };
  const id = props.serverId;
  const floor = useLoad(
    (signal) => ok(api.GET('/service-floors/{floor_id}', { params: { path: { floor_id: id } }, signal })),
    [id],
  );
  const related = useLoad(
    async (signal) => {
      const [connections, attached, networks, services, floors] = await Promise.all([
        ok(api.GET('/service-connections', { params: { query: { ...scope, entity_id: id } }, signal })),
        ok(api.GET('/attachments/service-floors/{floor_id}/networks', { params: { path: { floor_id: id } }, signal })),
        ok(api.GET('/networks', { params: { query: scope }, signal })),
        allServices(scope, undefined, signal),
        ok(api.GET('/service-floors', { params: { query: scope }, signal })),
      ]);
      const names = new Map<string, string>([
        ...services.map((s): [string, string] => [s.id, s.name]),
        ...floors.map((f): [string, string] => [f.id, floorName(f)]),
      ]);
      return {
        connections,
        attached: attached.networks,
        networks,
        hosted: services.filter((s) => s.service_floor_id === id),
        services,
        floors,
        names,
      };
    },
    [id],
  );
  const name = floor.data ? floorName(floor.data) : 'Server';
  const { actions, alert } = useDetailActions({
    projectId: props.projectId,
    entityId: id,
    editHref: to.editServer(props.projectId, props.envId, id),
    listHref: to.servers(props.projectId, props.envId),
    confirm: `Delete ${name}? Its services stay, without a server; its connections and network attachments are removed.`,
    remove: () => ok(api.DELETE('/service-floors/{floor_id}', { params: { path: { floor_id: id } } })),
  });
  return (
    <Page title={name} actions={floor.data && actions}>
      {alert}
      <Loaded state={floor} label="the server">
        {(f) => <ServerFacts floor={f} />}
      </Loaded>
      <Loaded state={related} label="what runs on it">
        {(r) => (
          <>
            <h2>Services on this server</h2>
            {r.hosted.length ? (
              <ul class="plain">
                {r.hosted.map((s) => (
                  <li key={s.id}>
                    <a href={to.service(props.projectId, props.envId, s.id)}>{s.name}</a>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No service runs on this server. Choose it as the server in a service's form.</p>
            )}
            <h2>Networks</h2>
            <NetworksForm
              holder={{ kind: 'floor', id }}
              attached={r.attached}
              networks={r.networks}
              projectId={props.projectId}
              envId={props.envId}
              onDone={related.reload}
            />
            <h2>Connections</h2>
            <Connections
              self={{ type: 'floor', id }}
              projectId={props.projectId}
              envId={props.envId}
              connections={r.connections}
              names={r.names}
              services={r.services}
              floors={r.floors}
              onChange={related.reload}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function ServerFacts({ floor: f }: { floor: Floor }) {
  return (
    <dl class="facts">
      <dt>Type</dt>
      <dd>{floorTypeLabel(f.type)}</dd>
      <dt>Hostname</dt>
      <dd>{orDash(f.hostname)}</dd>
      <dt>Location</dt>
      <dd>{orDash(locationOf(f))}</dd>
      <dt>Instance id</dt>
      <dd>{orDash(f.provider_instance_id)}</dd>
      <dt>IP addresses</dt>
      <dd>{orDash([f.ip_address, ...f.ip_addresses].filter(Boolean).join(', '))}</dd>
      <dt>CPUs</dt>
      <dd>{orDash(f.cpu)}</dd>
      <dt>Memory</dt>
      <dd>{f.memory_mb === null ? '—' : `${f.memory_mb} MB`}</dd>
      <dt>Storage</dt>
      <dd>{f.storage_gb === null ? '—' : `${f.storage_gb} GB`}</dd>
      <dt>Instances</dt>
      <dd>{orDash(f.instances)}</dd>
      <dt>Tags</dt>
      <dd>{f.tags.length ? f.tags.join(', ') : '—'}</dd>
      <CustomFacts projectId={f.project_id} kind="service_floor" values={f.custom_fields} />
      {f.cloud_account_id && (
        <>
          <dt>Discovered</dt>
          <dd>
            last seen {f.last_seen_at ?? '—'}
            {f.missing_since ? `, missing since ${f.missing_since}` : ''}
          </dd>
        </>
      )}
    </dl>
  );
}
