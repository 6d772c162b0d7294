import { useEffect, useState } from 'preact/hooks';
import type { Network } from '../../api';
import { saveAttachedNetworks, type Holder } from '../../attachments';
import { to } from '../../links';
import { Alert, useSubmit } from '../../ui';

/** At most this many networks per server or service (SPEC; the API refuses more with a 422). */
const MAX_NETWORKS = 10;

/**
 * The networks a server or a service is attached to, as checkboxes over the environment's networks
 * (the API replaces the whole set); the server's and the service's pages both show it.
 */
export function NetworksForm(props: {
  holder: Holder;
  attached: Network[];
  networks: Network[];
  projectId: string;
  envId: string;
  onDone: () => void;
}) {
  const initial = props.attached.map((n) => n.id);
  const [chosen, setChosen] = useState<string[]>(initial);
  useEffect(() => setChosen(initial), [initial.join()]);
  const {
    submit: save,
    busy,
    error,
  } = useSubmit(async () => {
    await saveAttachedNetworks(props.holder, chosen);
    props.onDone();
  }, []);
  const what = props.holder.kind === 'floor' ? 'this server' : 'this service';
  if (!props.networks.length)
    return (
      <p class="muted">
        This environment has no network yet. <a href={to.newNetwork(props.projectId, props.envId)}>Create one</a> to
        attach {what} to it.
      </p>
    );
  const changed = chosen.length !== initial.length || chosen.some((n) => !initial.includes(n));
  return (
    <form onSubmit={save}>
      {props.attached.length ? (
        <ul class="plain">
          {props.attached.map((n) => (
            <li key={n.id}>
              <a href={to.network(props.projectId, props.envId, n.id)}>{n.name}</a> <span class="muted">{n.cidr}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">Not attached to any network.</p>
      )}
      <Alert>{error}</Alert>
      <fieldset class="choices">
        <legend>Choose its networks (at most {MAX_NETWORKS})</legend>
        {props.networks.map((n) => (
          <label key={n.id} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(n.id)}
              onChange={(e) =>
                setChosen(e.currentTarget.checked ? [...chosen, n.id] : chosen.filter((c) => c !== n.id))
              }
            />
            {n.name} <span class="muted">{n.cidr}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit" class="primary" disabled={busy || !changed}>
        Save networks
      </button>
    </form>
  );
}
