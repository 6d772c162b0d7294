import type { LimitsStatus } from '../../api';
import { to } from '../../links';
import { limitText, when } from './plans';

/** What the plan allows against what is used: usage bars, and what is over the plan's limits. */

const KINDS = [
  ['services', 'Services (per project)'],
  ['project_users', 'Project users'],
  ['api_keys', 'API keys'],
] as const;

/** A usage bar: a <meter> (no inline style: the CSP forbids it) with its figures in words beside it. */
export function Usage(props: { id: string; label: string; count: number; limit: number | null; over?: number }) {
  const over = props.over ?? 0;
  return (
    <div class={over > 0 ? 'usage over' : 'usage'}>
      <label for={props.id}>{props.label}</label>
      {props.limit === null ? (
        <span id={props.id} class="muted">
          {props.count} used · unlimited
        </span>
      ) : (
        <meter
          id={props.id}
          min={0}
          max={Math.max(props.limit, props.count, 1)}
          low={props.limit * 0.8}
          high={props.limit}
          optimum={0}
          value={props.count}
        >
          {props.count} of {props.limit}
        </meter>
      )}
      <span class="figures">
        {props.count} of {limitText(props.limit)}
        {over > 0 && <strong class="error"> · {over} over</strong>}
      </span>
    </div>
  );
}

/** The account's usage against its plan's limits, per environment too, and what to do when it is over them. */
export function Limits(props: { status: LimitsStatus }) {
  const s = props.status;
  return (
    <>
      <div class="usages">
        {KINDS.map(([k, label]) => (
          <Usage key={k} id={`usage-${k}`} label={label} count={s.usage[k]} limit={s.limits[k]} over={s.over[k]} />
        ))}
      </div>
      {s.services_per_env.length > 0 && (
        <details>
          <summary>Services per environment</summary>
          <div class="usages">
            {s.services_per_env.map((e) => (
              <Usage
                key={e.environment_id}
                id={`usage-env-${e.environment_id}`}
                label={e.environment_name}
                count={e.services}
                limit={e.limit}
                over={e.over}
              />
            ))}
          </div>
        </details>
      )}
      {s.any_over && (
        <p class="alert">
          {s.over_total} resource{s.over_total === 1 ? ' is' : 's are'} over your plan's limits.
          {s.archive_window.until
            ? ` Choose what to archive before ${when(s.archive_window.until)}, or what is over is archived for you then. `
            : ' '}
          <a href={to.archive}>Choose what to archive</a>
        </p>
      )}
    </>
  );
}
