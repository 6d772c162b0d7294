import type { ImportReport } from '../../api';
import { TableWrap } from '../../table-wrap';

/** The actions of an import's report, in the order shown, with the sign a diff gives them. */
const ACTIONS = [
  ['create', '+', 'created'],
  ['update', '~', 'updated'],
  ['unchanged', '=', 'unchanged'],
  ['error', '!', 'refused'],
] as const;
type Action = (typeof ACTIONS)[number][0];

/** The kinds an import reports, in the document's order, with their names here. */
const KINDS: [string, string][] = [
  ['group', 'Groups'],
  ['subgroup', 'Subgroups'],
  ['service_floor', 'Servers'],
  ['floor', 'Servers'],
  ['network', 'Networks'],
  ['service', 'Services'],
  ['link', 'Links'],
  ['network_attachment', 'Network attachments'],
  ['attachment', 'Network attachments'],
  ['connection', 'Connections'],
  ['chain', 'Chains and hubs'],
];
const kindName = (kind: string) => KINDS.find(([k]) => k === kind)?.[1] ?? kind.replace(/_/g, ' ');
const kindOrder = (kind: string) => {
  const i = KINDS.findIndex(([k]) => k === kind);
  return i < 0 ? KINDS.length : i;
};

/**
 * An import's plan (a dry run) or result as a diff: per kind, how many entities are created, updated,
 * unchanged or refused, then each entity with its sign; the document's problems with their lines.
 * An import never deletes (what the environment has beyond the document stays), so there is no
 * deleted column.
 */
export function ImportDiff(props: { report: ImportReport; applied: boolean }) {
  const { report } = props;
  const kinds = [...new Set(report.items.map((i) => i.kind))].sort((a, b) => kindOrder(a) - kindOrder(b));
  const count = (kind: string, action: Action) =>
    report.items.filter((i) => i.kind === kind && i.action === action).length;
  const verb = props.applied ? '' : ' (planned)';
  return (
    <div class="import-diff">
      <p class="diff-summary" role="group" aria-label={`Summary${verb}`}>
        {ACTIONS.map(([action, sign, label]) => (
          <span key={action} class={`diff-${action}`}>
            <span aria-hidden="true">{sign} </span>
            {report.summary[action]} {label}
          </span>
        ))}
      </p>
      {report.errors.length > 0 && (
        <>
          <h3>Problems</h3>
          <ul class="problems">
            {report.errors.map((e, i) => (
              <li key={i}>
                <strong>{e.line === null ? 'Document' : `Line ${e.line}`}</strong> <code>{e.path}</code>: {e.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {kinds.length > 0 && (
        <TableWrap label="Per kind">
          <table class="diff-kinds">
            <caption>Per kind{verb}</caption>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                {ACTIONS.map(([a, , label]) => (
                  <th scope="col" key={a}>
                    {label[0].toUpperCase() + label.slice(1)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {kinds.map((kind) => (
                <tr key={kind}>
                  <th scope="row">{kindName(kind)}</th>
                  {ACTIONS.map(([a]) => (
                    <td key={a}>{count(kind, a)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {kinds.map((kind) => (
        <details key={kind} open={report.items.some((i) => i.kind === kind && i.action !== 'unchanged')}>
          <summary>{kindName(kind)}</summary>
          <ul class="diff-items">
            {report.items
              .filter((i) => i.kind === kind)
              .map((item, i) => {
                const [, sign, label] = ACTIONS.find(([a]) => a === item.action) ?? ['', '?', item.action];
                return (
                  <li key={i} class={`diff-${item.action}`}>
                    <span aria-hidden="true" class="sign">
                      {sign}
                    </span>{' '}
                    <span class="sr-only">{label}: </span>
                    {item.name}
                    {item.detail && <span class="muted"> — {item.detail}</span>}
                  </li>
                );
              })}
          </ul>
        </details>
      ))}
    </div>
  );
}
