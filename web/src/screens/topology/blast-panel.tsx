import { useMemo } from 'preact/hooks';
import type { BlastRadius } from '../../api';
import { to } from '../../links';
import { nodeId } from './graph';

/** The chosen service's blast radius beside the drawing: what else is affected, by distance, with its paths. */
export function BlastPanel(props: {
  projectId: string;
  envId: string;
  focus: string;
  blast: BlastRadius | undefined;
  names: Map<string, string>;
}) {
  const { focus, blast, names } = props;
  const byDistance = useMemo(() => {
    const out = new Map<number, BlastRadius['affected']>();
    for (const a of blast?.affected ?? []) out.set(a.distance, [...(out.get(a.distance) ?? []), a]);
    return [...out.entries()].sort(([a], [b]) => a - b);
  }, [blast]);
  return (
    <aside class="blast" aria-labelledby="blast-title">
      <h2 id="blast-title">Blast radius</h2>
      {!focus && (
        <p class="muted">Choose a service (click it, or pick it above) to see what else is affected when it fails.</p>
      )}
      {focus && !blast && (
        <p class="muted" role="status">
          Reading the blast radius…
        </p>
      )}
      {blast && (
        <>
          <p>
            If <a href={to.service(props.projectId, props.envId, blast.origin.id)}>{blast.origin.name}</a> fails,{' '}
            <strong>{blast.affected.length}</strong> other {blast.affected.length === 1 ? 'item is' : 'items are'}{' '}
            affected{blast.truncated ? ' (and more beyond the depth limit)' : ''}.
          </p>
          <ol class="distances">
            {byDistance.map(([distance, list]) => (
              <li key={distance}>
                <span class={`swatch d${Math.min(distance, 3)}`} aria-hidden="true" />{' '}
                <strong>Distance {distance}</strong>
                <ul>
                  {list.map((a) => (
                    <li key={a.id} data-affected={a.name ?? a.id}>
                      {a.name ?? a.id}{' '}
                      <span class="muted">
                        via {a.path.map((p) => names.get(nodeId(p.type, p.id)) ?? p.id).join(' → ')}
                      </span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </>
      )}
    </aside>
  );
}
