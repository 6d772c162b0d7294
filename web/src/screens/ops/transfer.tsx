import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, formData, ok, type ExportBody, type ImpexRecord, type ImportBody } from '../../api';
import { to } from '../../links';
import { Alert, Loaded, message, Page, useLoad } from '../../ui';
import { followJob, type JobProgress } from './follow-job';
import { ImportDiff } from './import-plan';
import { TableWrap } from './table-wrap';
import { when } from './plans';

/** The largest document the dashboard sends in one request (the API's default IMPEX_MAX_DOCUMENT_BYTES). */
const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

/** A job's live progress: a <progress> bar (no inline style) and what it is doing. */
function Progress(props: { label: string; progress?: JobProgress }) {
  const p = props.progress;
  return (
    <div class="job-progress">
      <label for="job-progress">{props.label}</label>
      <progress id="job-progress" max={100} value={p?.pct ?? 0}>{p?.pct ?? 0}%</progress>
      <p role="status" aria-live="polite" class="muted" data-via={p?.via}>
        {p ? `${p.status} · ${p.pct}%${p.total ? ` · ${p.done} of ${p.total}` : ''}` : 'queued'}
      </p>
    </div>
  );
}

/** Starts an export, follows it, and offers its document. */
function ExportPanel(props: { projectId: string; envId: string; onDone: () => void }) {
  const [progress, setProgress] = useState<JobProgress>();
  const [running, setRunning] = useState(false);
  const [done, setDone] = useState<ImpexRecord>();
  const [error, setError] = useState<string>();
  const start = async () => {
    setRunning(true);
    setError(undefined);
    setDone(undefined);
    setProgress(undefined);
    try {
      const body: ExportBody = { project_id: props.projectId, environment_id: props.envId };
      const started = await ok(api.POST('/impex/export', { body, bodySerializer: formData }));
      const record = await followJob(started.job_id, setProgress);
      setDone(record);
      if (record.status === 'failed') setError(record.error ?? 'The export failed. Please try again.');
      props.onDone();
    } catch (err) {
      setError(message(err));
    } finally {
      setRunning(false);
    }
  };
  return (
    <section aria-labelledby="export-title" class="panel">
      <h2 id="export-title">Export</h2>
      <p>Writes this environment (groups, servers, networks, services, links, connections) as a YAML document you can keep, review or import elsewhere.</p>
      <button type="button" class="primary" onClick={start} disabled={running}>Export environment</button>
      {(running || progress) && !done && <Progress label="Export progress" progress={progress} />}
      <Alert>{error}</Alert>
      {done?.download_url && (
        <p class="ok">
          Export ready. <a href={done.download_url} download>Download document</a>{' '}
          <span class="muted">(link valid until {when(done.link_expires_at)})</span>
        </p>
      )}
    </section>
  );
}

type Stage = { step: 'choose' } | { step: 'planning' | 'applying'; progress?: JobProgress } | { step: 'planned' | 'applied'; record: ImpexRecord };

/**
 * Import: choose a YAML or JSON document, plan it (a dry run: nothing is written) and see the plan as a
 * diff, then apply it with live progress, and see the result. The document goes in the request
 * (multipart); the upload-URL flow would PUT to the bucket's host, which the page's CSP does not allow.
 */
function ImportPanel(props: { projectId: string; envId: string; onDone: () => void }) {
  const [file, setFile] = useState<{ name: string; text: string; type: string }>();
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);

  const choose = async (f: File | undefined) => {
    setError(undefined);
    setStage({ step: 'choose' });
    if (!f) return setFile(undefined);
    if (f.size > MAX_DOCUMENT_BYTES) {
      setFile(undefined);
      return setError(`${f.name} is ${(f.size / 1024 / 1024).toFixed(1)} MB: the dashboard sends documents up to 5 MB. Import bigger ones with the CLI (infracat import), which uploads them to storage first.`);
    }
    const json = /\.json$/i.test(f.name) || f.type === 'application/json';
    setFile({ name: f.name, text: await f.text(), type: json ? 'application/json' : 'application/yaml' });
  };

  const run = async (dryRun: boolean) => {
    if (!file) return setError('Choose a configuration document first.');
    setError(undefined);
    setStage({ step: dryRun ? 'planning' : 'applying' });
    try {
      const body: ImportBody = {
        project_id: props.projectId, environment_id: props.envId, dry_run: dryRun ? 'true' : 'false',
        file: { filename: file.name, content_type: file.type, text: file.text },
      };
      const started = await ok(api.POST('/impex/import', { body, bodySerializer: formData }));
      const record = await followJob(started.job_id, (progress) => setStage({ step: dryRun ? 'planning' : 'applying', progress }));
      setStage({ step: dryRun ? 'planned' : 'applied', record });
      if (record.status === 'failed') setError(record.error ?? 'The import failed. Please try again.');
      props.onDone();
    } catch (err) {
      setStage({ step: 'choose' });
      setError(message(err));
    }
  };

  const busy = stage.step === 'planning' || stage.step === 'applying';
  return (
    <section aria-labelledby="import-title" class="panel">
      <h2 id="import-title">Import</h2>
      <p>Entities are matched by name: the same name is updated, a new one created. Nothing is deleted. Plan first to see what would change.</p>
      <div class="field">
        <label for="import-file">Configuration document (YAML or JSON)</label>
        <input id="import-file" ref={input} type="file" accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml" disabled={busy}
          onChange={(e) => void choose(e.currentTarget.files?.[0])} aria-describedby="import-file-hint" />
        <small id="import-file-hint">Up to 5 MB.</small>
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={!file || busy} onClick={() => void run(true)}>Plan import</button>
        {stage.step === 'planned' && stage.record.status === 'succeeded' && (
          <button type="button" class="primary" onClick={() => void run(false)}>Apply import</button>
        )}
      </div>
      <Alert>{error}</Alert>
      {busy && <Progress label={stage.step === 'planning' ? 'Planning progress' : 'Import progress'} progress={stage.progress} />}
      {(stage.step === 'planned' || stage.step === 'applied') && stage.record.report && (
        <>
          <h3>{stage.step === 'planned' ? `Plan of ${file?.name ?? 'the document'}` : stage.record.status === 'succeeded' ? 'Import finished' : 'Import stopped'}</h3>
          {stage.step === 'applied' && stage.record.status === 'succeeded' && (
            <p class="ok" role="status">Imported {file?.name}: {stage.record.report.summary.create} created, {stage.record.report.summary.update} updated. <a href={to.services(props.projectId, props.envId)}>See the services</a></p>
          )}
          <ImportDiff report={stage.record.report} applied={stage.step === 'applied'} />
        </>
      )}
    </section>
  );
}

/** One record of the history, as a row; an import's report opens below the table (`?job=`). */
function HistoryRow(props: { record: ImpexRecord; projectId: string; envId: string }) {
  const r = props.record;
  const expired = r.link_expires_at ? new Date(r.link_expires_at) < new Date() : false;
  const s = r.report?.summary;
  return (
    <tr>
      <th scope="row">{r.kind === 'export' ? 'Export' : r.dry_run ? 'Import plan' : 'Import'}</th>
      <td>{when(r.created_at)}</td>
      <td><span class={`status status-${r.status}`}>{r.status}</span></td>
      <td>{r.filename ?? '—'}</td>
      <td>{s ? `+${s.create} ~${s.update} =${s.unchanged}${s.error ? ` !${s.error}` : ''}` : r.error ?? ''}</td>
      <td>
        {r.kind === 'export' && r.download_url && !expired && <a href={r.download_url} download aria-label={`Download the export of ${when(r.created_at)}`}>Download</a>}
        {r.kind === 'export' && expired && <span class="muted">link expired</span>}
        {r.kind === 'import' && r.report && <a href={to.transfer(props.projectId, props.envId, r.job_id)} aria-label={`Details of the import of ${when(r.created_at)}`}>Details</a>}
      </td>
    </tr>
  );
}

/** The environment's exports and imports, newest first; `job` shows one import's report. */
function History(props: { projectId: string; envId: string; round: number; job?: string }) {
  const history = useLoad((signal) => ok(api.GET('/impex/history', { params: { query: { project_id: props.projectId, environment_id: props.envId, limit: 50 } }, signal })), [props.projectId, props.envId, props.round]);
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
                <thead><tr><th scope="col">What</th><th scope="col">Started</th><th scope="col">Status</th><th scope="col">File</th><th scope="col">Result</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>{records.map((r) => <HistoryRow key={r.id} record={r} projectId={props.projectId} envId={props.envId} />)}</tbody>
              </table>
            </TableWrap>
          ) : (
            <p class="muted">No export or import of this environment yet.</p>
          )
        }
      </Loaded>
      {chosen?.report && (
        <>
          <h3 tabIndex={-1} ref={detail}>{chosen.dry_run ? 'Plan' : 'Import'} of {chosen.filename ?? 'a document'}, {when(chosen.created_at)}</h3>
          <ImportDiff report={chosen.report} applied={!chosen.dry_run} />
        </>
      )}
    </section>
  );
}

/** Import & export of an environment: `/p/:projectId/e/:envId/transfer[?job=<import job>]`. */
export function Transfer(props: { projectId: string; envId: string }) {
  const { query } = useLocation();
  const [round, setRound] = useState(0);
  const refresh = () => setRound((r) => r + 1);
  return (
    <Page title="Import & export">
      <div class="transfer">
        <ExportPanel {...props} onDone={refresh} />
        <ImportPanel {...props} onDone={refresh} />
      </div>
      <History {...props} round={round} job={query.job} />
    </Page>
  );
}
