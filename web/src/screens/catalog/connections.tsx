import { useState } from 'preact/hooks';
import { api, ok, type Connection, type ConnectionInput, type Floor } from '../../api';
import { to } from '../../links';
import { ConfirmButton, Select, useSubmit } from '../../ui';
import { floorName } from './names';

/** A connection as read from one of its ends (a service's or a server's page), and the form that adds one. */

type Direction = NonNullable<ConnectionInput['direction']>;
/** How a connection reads from the side of the page's entity (it is end `a` or `b`). */
const ARROWS: Record<Direction, [string, string]> = {
  none: ['—', '—'],
  a_to_b: ['→', '←'],
  b_to_a: ['←', '→'],
  both: ['↔', '↔'],
};
const DIRECTIONS: [Direction, string][] = [
  ['a_to_b', 'This one calls it (→)'],
  ['b_to_a', 'It calls this one (←)'],
  ['both', 'Both ways (↔)'],
  ['none', 'No direction (—)'],
];

/** The page of a connection's end: a service's or a server's. */
export const entityHref = (projectId: string, envId: string) => (type: 'service' | 'floor', id: string) =>
  type === 'floor' ? to.server(projectId, envId, id) : to.service(projectId, envId, id);

export function ConnectionItem(props: {
  connection: Connection;
  self: string;
  names: Map<string, string>;
  href: (type: 'service' | 'floor', id: string) => string;
  onChange: () => void;
}) {
  const c = props.connection;
  const selfIsA = c.a_id === props.self;
  const other = selfIsA ? c.b_id : c.a_id;
  const otherType = selfIsA ? c.b_type : c.a_type;
  const arrow = ARROWS[c.direction as Direction][selfIsA ? 0 : 1];
  const name = props.names.get(other) ?? other;
  const link = props.names.has(other) ? props.href(otherType, other) : undefined;
  return (
    <li>
      <span class="arrow" aria-hidden="true">
        {arrow}
      </span>{' '}
      <span class="sr-only">
        {arrow === '→'
          ? 'calls'
          : arrow === '←'
            ? 'is called by'
            : arrow === '↔'
              ? 'calls and is called by'
              : 'connected to'}
      </span>{' '}
      {link ? <a href={link}>{name}</a> : name}{' '}
      <span class="muted">
        ({otherType === 'floor' ? 'server' : 'service'}
        {c.name ? `, ${c.name}` : ''})
      </span>{' '}
      <ConfirmButton
        label="Remove"
        confirm={`Remove the connection with ${name}?`}
        onConfirm={async () => {
          await ok(api.DELETE('/service-connections/{connection_id}', { params: { path: { connection_id: c.id } } }));
          props.onChange();
        }}
      />
    </li>
  );
}

type End = { type: 'service' | 'floor'; id: string };

/** An entity's connections (each removable) and the form that connects it to another service or server of its environment. */
export function Connections(props: {
  self: End;
  projectId: string;
  envId: string;
  connections: Connection[];
  names: Map<string, string>;
  services: { id: string; name: string }[];
  floors: Floor[];
  onChange: () => void;
}) {
  const { self, projectId, envId } = props;
  const others = <T extends { id: string }>(type: End['type'], items: T[]) =>
    items.filter((x) => !(self.type === type && x.id === self.id));
  return (
    <>
      {props.connections.length ? (
        <ul class="plain connections">
          {props.connections.map((c) => (
            <ConnectionItem
              key={c.id}
              connection={c}
              self={self.id}
              names={props.names}
              href={entityHref(projectId, envId)}
              onChange={props.onChange}
            />
          ))}
        </ul>
      ) : (
        <p class="muted">No connections yet.</p>
      )}
      <ConnectForm
        self={self}
        scope={{ project_id: projectId, environment_id: envId }}
        candidates={[
          ...others('service', props.services).map((x): [string, string] => [`service:${x.id}`, `${x.name} (service)`]),
          ...others('floor', props.floors).map((f): [string, string] => [`floor:${f.id}`, `${floorName(f)} (server)`]),
        ]}
        onDone={props.onChange}
      />
    </>
  );
}

function ConnectForm(props: {
  self: End;
  scope: { project_id: string; environment_id: string };
  candidates: [string, string][];
  onDone: () => void;
}) {
  const [target, setTarget] = useState('');
  const [direction, setDirection] = useState<Direction>('a_to_b');
  const { submit, busy, error } = useSubmit(async () => {
    if (!target) throw new Error('Choose what to connect to.');
    const [b_type, b_id] = target.split(':') as [End['type'], string];
    await ok(
      api.POST('/service-connections', {
        body: { ...props.scope, a_type: props.self.type, a_id: props.self.id, b_type, b_id, direction },
      }),
    );
    setTarget('');
    props.onDone();
  }, []);
  if (!props.candidates.length) return <p class="muted">Create another service or a server to connect this one to.</p>;
  return (
    <form class="inline-form" onSubmit={submit} aria-label="New connection">
      <Select
        label="Connect to"
        name="connect-to"
        value={target}
        onValue={setTarget}
        options={[['', 'Choose…'], ...props.candidates]}
        error={error}
      />
      <Select
        label="Direction"
        name="direction"
        value={direction}
        onValue={(v) => setDirection(v as Direction)}
        options={DIRECTIONS}
      />
      <button type="submit" class="primary" disabled={busy}>
        Connect
      </button>
    </form>
  );
}
