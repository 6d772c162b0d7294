import { useState } from 'preact/hooks';
import { api, ok, type Connection, type ConnectionInput } from '../api';
import { to } from '../links';
import { ConfirmButton, message, Select } from '../ui';

/** A connection as read from one of its ends (a service's or a server's page), and the form that adds one. */

type Direction = NonNullable<ConnectionInput['direction']>;
/** How a connection reads from the side of the page's entity (it is end `a` or `b`). */
const ARROWS: Record<Direction, [string, string]> = { none: ['—', '—'], a_to_b: ['→', '←'], b_to_a: ['←', '→'], both: ['↔', '↔'] };
const DIRECTIONS: [Direction, string][] = [['a_to_b', 'This one calls it (→)'], ['b_to_a', 'It calls this one (←)'], ['both', 'Both ways (↔)'], ['none', 'No direction (—)']];

/** The page of a connection's end: a service's or a server's. */
export const entityHref = (projectId: string, envId: string) => (type: 'service' | 'floor', id: string) =>
  type === 'floor' ? to.server(projectId, envId, id) : to.service(projectId, envId, id);

export function ConnectionItem(props: { connection: Connection; self: string; names: Map<string, string>; href: (type: 'service' | 'floor', id: string) => string; onChange: () => void }) {
  const c = props.connection;
  const selfIsA = c.a_id === props.self;
  const other = selfIsA ? c.b_id : c.a_id;
  const otherType = selfIsA ? c.b_type : c.a_type;
  const arrow = ARROWS[c.direction as Direction][selfIsA ? 0 : 1];
  const name = props.names.get(other) ?? other;
  const link = props.names.has(other) ? props.href(otherType, other) : undefined;
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

export function ConnectForm(props: { self: { type: 'service' | 'floor'; id: string }; scope: { project_id: string; environment_id: string }; candidates: [string, string][]; onDone: () => void }) {
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
      await ok(api.POST('/service-connections', { body: { ...props.scope, a_type: props.self.type, a_id: props.self.id, b_type, b_id, direction } }));
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
