import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allServices, api, ok, type Connection, type ConnectionInput } from '../api';
import { to } from '../links';
import { Alert, ConfirmButton, Loaded, message, Page, Select, useLoad } from '../ui';

type Direction = NonNullable<ConnectionInput['direction']>;
/** How a connection reads from this service's side (it is end `a` or `b`). */
const ARROWS: Record<Direction, [string, string]> = { none: ['—', '—'], a_to_b: ['→', '←'], b_to_a: ['←', '→'], both: ['↔', '↔'] };
const DIRECTIONS: [Direction, string][] = [['a_to_b', 'This service calls it (→)'], ['b_to_a', 'It calls this service (←)'], ['both', 'Both ways (↔)'], ['none', 'No direction (—)']];

/** A service with its server, networks, connections and links; edit, delete, connect. */
export function ServiceDetail(props: { projectId: string; envId: string; serviceId: string }) {
  const { route } = useLocation();
  const scope = { project_id: props.projectId, environment_id: props.envId };
  const id = props.serviceId;
  const service = useLoad((signal) => ok(api.GET('/services/{service_id}', { params: { path: { service_id: id } }, signal })), [id]);
  const related = useLoad(async (signal) => {
    const [connections, links, networks, services, floors] = await Promise.all([
      ok(api.GET('/service-connections', { params: { query: { ...scope, entity_id: id } }, signal })),
      ok(api.GET('/service-links', { params: { query: { ...scope, service_id: id } }, signal })),
      ok(api.GET('/attachments/services/{service_id}/networks', { params: { path: { service_id: id } }, signal })),
      allServices(scope, undefined, signal),
      ok(api.GET('/service-floors', { params: { query: scope }, signal })),
    ]);
    const names = new Map<string, string>([...services.map((s): [string, string] => [s.id, s.name]), ...floors.map((f): [string, string] => [f.id, f.hostname ?? f.id])]);
    return { connections, links, networks: networks.networks, services, floors, names };
  }, [id]);
  const [error, setError] = useState<string>();

  const remove = async () => {
    try {
      await ok(api.DELETE('/services/{service_id}', { params: { path: { service_id: id } } }));
      route(to.services(props.projectId, props.envId), true);
    } catch (err) {
      setError(message(err));
    }
  };

  return (
    <Page title={service.data?.name ?? 'Service'} actions={service.data && (
      <>
        <a class="button" href={to.topology(props.projectId, props.envId, id)}>Show in topology</a>
        <a class="button" href={to.editService(props.projectId, props.envId, id)}>Edit</a>
        <ConfirmButton label="Delete" confirm={`Delete ${service.data.name} and its connections?`} onConfirm={remove} />
      </>
    )}>
      <Alert>{error}</Alert>
      <Loaded state={service} label="the service">
        {(s) => (
          <dl class="facts">
            <dt>Type</dt><dd>{s.type}</dd>
            <dt>Category</dt><dd>{s.category ?? '—'}</dd>
            <dt>Location</dt><dd>{[s.provider, s.provider_region, s.provider_zone].filter(Boolean).join(' / ') || '—'}</dd>
            <dt>Port</dt><dd>{s.port ?? '—'}</dd>
            <dt>Replicas</dt><dd>{s.replicas ?? '—'}</dd>
            <dt>IP address</dt><dd>{s.ip_address ?? '—'}</dd>
            <dt>Language</dt><dd>{[s.programming_language, s.programming_language_version].filter(Boolean).join(' ') || '—'}</dd>
            <dt>Version</dt><dd>{s.version ?? '—'}</dd>
            <dt>Group</dt><dd>{[s.group_name, s.subgroup_name].filter(Boolean).join(' / ') || '—'}</dd>
            <dt>Repository</dt><dd>{s.repository_url ?? '—'}</dd>
            <dt>Tags</dt><dd>{s.tags.length ? s.tags.join(', ') : '—'}</dd>
            <dt>Links</dt><dd>{s.links.length ? <ul class="plain">{s.links.map((l) => <li key={l}><a href={l} rel="noopener noreferrer" target="_blank">{l}</a></li>)}</ul> : '—'}</dd>
            <dt>Server</dt><dd>{s.service_floor_id ? (related.data?.names.get(s.service_floor_id) ?? s.service_floor_id) : 'none (serverless)'}</dd>
          </dl>
        )}
      </Loaded>
      <Loaded state={related} label="connections">
        {(r) => (
          <>
            <h2>Networks</h2>
            {r.networks.length ? <ul class="plain">{r.networks.map((n) => <li key={n.id}>{n.name} <span class="muted">{n.cidr}</span></li>)}</ul> : <p class="muted">Not attached to any network.</p>}
            <h2>Connections</h2>
            {r.connections.length ? (
              <ul class="plain connections">
                {r.connections.map((c) => <ConnectionItem key={c.id} connection={c} self={id} names={r.names} href={(other) => (r.services.some((s) => s.id === other) ? to.service(props.projectId, props.envId, other) : undefined)} onChange={related.reload} />)}
              </ul>
            ) : <p class="muted">No connections yet.</p>}
            <ConnectForm self={id} scope={scope} candidates={[
              ...r.services.filter((s) => s.id !== id).map((s): [string, string] => [`service:${s.id}`, `${s.name} (service)`]),
              ...r.floors.map((f): [string, string] => [`floor:${f.id}`, `${f.hostname ?? f.id} (server)`]),
            ]} onDone={related.reload} />
            <h2>Links</h2>
            {r.links.length ? (
              <ul class="plain">
                {r.links.map((l) => {
                  const outgoing = l.from_service_id === id;
                  const other = outgoing ? l.to_service_id : l.from_service_id;
                  return <li key={l.id}>{outgoing ? 'to' : 'from'} <a href={to.service(props.projectId, props.envId, other)}>{r.names.get(other) ?? other}</a></li>;
                })}
              </ul>
            ) : <p class="muted">No links.</p>}
          </>
        )}
      </Loaded>
    </Page>
  );
}

function ConnectionItem(props: { connection: Connection; self: string; names: Map<string, string>; href: (id: string) => string | undefined; onChange: () => void }) {
  const c = props.connection;
  const selfIsA = c.a_id === props.self;
  const other = selfIsA ? c.b_id : c.a_id;
  const otherType = selfIsA ? c.b_type : c.a_type;
  const arrow = ARROWS[c.direction as Direction][selfIsA ? 0 : 1];
  const name = props.names.get(other) ?? other;
  const link = props.href(other);
  return (
    <li>
      <span class="arrow" aria-hidden="true">{arrow}</span>{' '}
      <span class="sr-only">{arrow === '→' ? 'calls' : arrow === '←' ? 'is called by' : arrow === '↔' ? 'calls and is called by' : 'connected to'}</span>{' '}
      {link ? <a href={link}>{name}</a> : name} <span class="muted">({otherType === 'floor' ? 'server' : 'service'}{c.name ? `, ${c.name}` : ''})</span>{' '}
      <ConfirmButton label="Remove" confirm={`Remove the connection with ${name}?`} onConfirm={async () => {
        await ok(api.DELETE('/service-connections/{connection_id}', { params: { path: { connection_id: c.id } } }));
        props.onChange();
      }} />
    </li>
  );
}

function ConnectForm(props: { self: string; scope: { project_id: string; environment_id: string }; candidates: [string, string][]; onDone: () => void }) {
  const [target, setTarget] = useState('');
  const [direction, setDirection] = useState<Direction>('a_to_b');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!props.candidates.length) return <p class="muted">Create another service or a server to connect this one to.</p>;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!target) return setError('Choose what to connect to.');
    const [b_type, b_id] = target.split(':') as ['service' | 'floor', string];
    setBusy(true);
    setError(undefined);
    try {
      await ok(api.POST('/service-connections', { body: { ...props.scope, a_type: 'service', a_id: props.self, b_type, b_id, direction } }));
      setTarget('');
      props.onDone();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="New connection">
      <Select label="Connect to" name="connect-to" value={target} onValue={setTarget} options={[['', 'Choose…'], ...props.candidates]} error={error} />
      <Select label="Direction" name="direction" value={direction} onValue={(v) => setDirection(v as Direction)} options={DIRECTIONS} />
      <button type="submit" class="primary" disabled={busy}>Connect</button>
    </form>
  );
}
