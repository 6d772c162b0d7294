import { useEffect, useRef } from 'preact/hooks';
import { api, ok, type ImpexRecord } from '../../api';
import { to } from '../../links';
import { Loaded, useLoad } from '../../ui';
import { ImportDiff } from './import-plan';
import { TableWrap } from '../../table-wrap';
import { when } from './plans';

/** The history of an environment's exports and imports, and one import's report from it. */

/** One record of the history, as a row; an import's report opens below the table (`?job=`). */
function HistoryRow(props: { record: ImpexRecord; projectId: string; envId: string }) {
  const r = props.record;
  const expired = r.link_expires_at ? new Date(r.link_expires_at) < new Date() : false;
  const s = r.report?.summary;
  return (
    <tr>
      <th scope="row">{r.kind === 'export' ? 'Export' : r.dry_run ? 'Import plan' : 'Import'}</th>
      <td>{when(r.created_at)}</td>
      <td>
        <span class={`status status-${r.status}`}>{r.status}</span>
      </td>
      <td>{r.filename ?? '—'}</td>
      <td>{s ? `+${s.create} ~${s.update} =${s.unchanged}${s.error ? ` !${s.error}` : ''}` : (r.error ?? '')}</td>
      <td>
        {r.kind === 'export' && r.download_url && !expired && (
          <a href={r.download_url} download aria-label={`Download the export of ${when(r.created_at)}`}>
            Download
          </a>
        )}
        {r.kind === 'export' && expired && <span class="muted">link expired</span>}
        {r.kind === 'import' && r.report && (
          <a
            href={to.transfer(props.projectId, props.envId, r.job_id)}
            aria-label={`Details of the import of ${when(r.created_at)}`}
          >
            Details
          </a>
        )}
      </td>
    </tr>
  );
}

/** The environment's exports and imports, newest first; `job` shows one import's report. */
export function History(props: { projectId: string; envId: string; round: number; job?: string }) {
  const history = useLoad(
    (signal) =>
      ok(
        api.GET('/impex/history', {
          params: { query: { project_id: props.projectId, environment_id: props.envId, limit: 50 } },
          signal,
        }),
      ),
    [props.projectId, props.envId, props.round],
  );
  const chosen = history.data?.find((r) => r.job_id === props.job);
  const detail = useRef<HTMLHeadingElement>(null);
  useEffect(() => detail.current?.focus(), [chosen?.id]);
  return (
    <section aria-labelledby="history-title" class="panel">
      <h2 id="history-title">History</h2>
      <Loaded state={history} label="history">
        {(records) =>
          records.length ? (
            <TableWrap label="History">
              <table class="history">
                <thead>
                  <tr>
                    <th scope="col">What</th>
                    <th scope="col">Started</th>
                    <th scope="col">Status</th>
                    <th scope="col">File</th>
                    <th scope="col">Result</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {records.map((r) => (
                    <HistoryRow key={r.id} record={r} projectId={props.projectId} envId={props.envId} />
                  ))}
                </tbody>
              </table>
            </TableWrap>
          ) : (
            <p class="muted">No export or import of this environment yet.</p>
          )
        }
      </Loaded>
      {chosen?.report && (
        <>
          <h3 tabIndex={-1} ref={detail}>
            {chosen.dry_run ? 'Plan' : 'Import'} of {chosen.filename ?? 'a document'}, {when(chosen.created_at)}
          </h3>
          <ImportDiff report={chosen.report} applied={!chosen.dry_run} />
        </>
      )}
    </section>
  );
}
