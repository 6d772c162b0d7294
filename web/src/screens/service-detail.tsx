import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../api';
import { allServices } from '../services';
import { to } from '../links';
import { Alert, ConfirmButton, Loaded, message, Page, useLoad } from '../ui';
import { Connections } from './catalog/connections';
import { floorName } from './catalog/names';
import { NetworksForm } from './catalog/networks-form';
import { following, useLive } from '../live';
import { CustomFieldRows, useCustomFields } from '../custom-fields';

/** A service with its server, networks, connections and links; edit, delete, connect. */
export function ServiceDetail(props: { projectId: string; envId: string; serviceId: string }) {
  const { route } = useLocation();
  const scope = { project_id: props.projectId, environment_id: props.envId };
  const liveScope = { projectId: props.projectId, envId: props.envId };
  const id = props.serviceId;
  // Both reads wait until the live feed (below) follows the environment: no change made meanwhile is missed.
  const service = useLoad(
    async (signal) => {
      await following(liveScope);
      return ok(api.GET('/services/{service_id}', { params: { path: { service_id: id } }, signal }));
    },
    [id],
  );
  const customFields = useCustomFields(props.projectId, 'service');
  const related = useLoad(
    async (signal) => {
      await following(liveScope);
      const [connections, links, attached, networks, services, floors] = await Promise.all([
        ok(api.GET('/service-connections', { params: { query: { ...scope, entity_id: id } }, signal })),
        ok(api.GET('/service-links', { params: { query: { ...scope, service_id: id } }, signal })),
        ok(api.GET('/attachments/services/{service_id}/networks', { params: { path: { service_id: id } }, signal })),
        ok(api.GET('/networks', { params: { query: scope }, signal })),
        allServices(scope, undefined, signal),
        ok(api.GET('/service-floors', { params: { query: scope }, signal })),
      ]);
      const names = new Map<string, string>([
        ...services.map((s): [string, string] => [s.id, s.name]),
        ...floors.map((f): [string, string] => [f.id, floorName(f)]),
      ]);
      return { connections, links, attached: attached.networks, networks, services, floors, names };
    },
    [id],
  );
  const [error, setError] = useState<string>();
  const [gone, setGone] = useState(false);
  // Live: this service changed (read again), went (said so), or its connections and links did.
  useLive(
    liveScope,
    (c) => {
      if (c.kind === 'service' && c.id === id) {
        if (c.op === 'deleted') setGone(true);
        else service.reload();
      } else if (c.kind === 'connection' || c.kind === 'link' || c.kind === 'network') related.reload();
    },
    () => (service.reload(), related.reload()),
  );

  const remove = async () => {
    try {
      await ok(api.DELETE('/services/{service_id}', { params: { path: { service_id: id } } }));
      route(to.services(props.projectId, props.envId), true);
    } catch (err) {
      setError(message(err));
    }
  };

  return (
    <Page
      title={service.data?.name ?? 'Service'}
      actions={
        service.data && (
          <>
            <a class="button" href={to.topology(props.projectId, props.envId, id)}>
              Show in topology
            </a>
            <a class="button" href={to.editService(props.projectId, props.envId, id)}>
              Edit
            </a>
            <a class="button" href={to.audit(props.projectId, { entity_id: id })}>
              History
            </a>
            <ConfirmButton
              label="Delete"
              confirm={`Delete ${service.data.name} and its connections?`}
              onConfirm={remove}
            />
          </>
        )
      }
    >
      <Alert>{error}</Alert>
      {gone ? <Alert>This service was deleted meanwhile.</Alert> : null}
      <Loaded state={service} label="the service">
        {(s) => (
          <dl class="facts">
            <dt>Type</dt>
            <dd>{s.type}</dd>
            <dt>Category</dt>
            <dd>{s.category ?? '—'}</dd>
            <dt>Location</dt>
            <dd>{[s.provider, s.provider_region, s.provider_zone].filter(Boolean).join(' / ') || '—'}</dd>
            <dt>Port</dt>
            <dd>{s.port ?? '—'}</dd>
            <dt>Replicas</dt>
            <dd>{s.replicas ?? '—'}</dd>
            <dt>IP address</dt>
            <dd>{s.ip_address ?? '—'}</dd>
            <dt>Language</dt>
            <dd>{[s.programming_language, s.programming_language_version].filter(Boolean).join(' ') || '—'}</dd>
            <dt>Version</dt>
            <dd>{s.version ?? '—'}</dd>
            <dt>Group</dt>
            <dd>{[s.group_name, s.subgroup_name].filter(Boolean).join(' / ') || '—'}</dd>
            <dt>Repository</dt>
            <dd>{s.repository_url ?? '—'}</dd>
            <dt>Tags</dt>
            <dd>{s.tags.length ? s.tags.join(', ') : '—'}</dd>
            <CustomFieldRows defs={customFields.data ?? []} values={s.custom_fields} />
            <dt>Links</dt>
            <dd>
              {s.links.length ? (
                <ul class="plain">
                  {s.links.map((l) => (
                    <li key={l}>
                      <a href={l} rel="noopener noreferrer" target="_blank">
                        {l}
                      </a>
                    </li>
                  ))}
                </ul>
              ) : (
                '—'
              )}
            </dd>
            <dt>Server</dt>
            <dd>
              {s.service_floor_id ? (
                <a href={to.server(props.projectId, props.envId, s.service_floor_id)}>
                  {related.data?.names.get(s.service_floor_id) ?? 'its server'}
                </a>
              ) : (
                'none (serverless)'
              )}
            </dd>
          </dl>
        )}
      </Loaded>
      <Loaded state={related} label="connections">
        {(r) => (
          <>
            <h2>Networks</h2>
            <NetworksForm
              holder={{ kind: 'service', id }}
              attached={r.attached}
              networks={r.networks}
              projectId={props.projectId}
              envId={props.envId}
              onDone={related.reload}
            />
            <h2>Connections</h2>
            <Connections
              self={{ type: 'service', id }}
              projectId={props.projectId}
              envId={props.envId}
              connections={r.connections}
              names={r.names}
              services={r.services}
              floors={r.floors}
              onChange={related.reload}
            />
            <h2>Links</h2>
            {r.links.length ? (
              <ul class="plain">
                {r.links.map((l) => {
                  const outgoing = l.from_service_id === id;
                  const other = outgoing ? l.to_service_id : l.from_service_id;
                  return (
                    <li key={l.id}>
                      {outgoing ? 'to' : 'from'}{' '}
                      <a href={to.service(props.projectId, props.envId, other)}>{r.names.get(other) ?? other}</a>
                    </li>
                  );
                })}
              </ul>
            ) : (
              <p class="muted">No links.</p>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}
