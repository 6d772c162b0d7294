import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { paths } from '@infracat/client/schema';
import { api, client, multipart, ok, type ExportBody, type ImpexRecord, type ImportBody } from '../../api';
import { to } from '../../links';
import { Alert, message, Page } from '../../ui';
import { followJob, type JobProgress } from '@infracat/client/jobs';
import { ImportDiff } from './import-plan';
import { when } from './plans';
import { History } from './transfer-history';

type UploadUrlBody = NonNullable<paths['/impex/upload-url']['post']['requestBody']>['content']['application/json'];

/**
 * PUTs the document to its presigned URL (the documents bucket: no request-size limit, the page's one
 * other connect-src), reporting the bytes sent; XMLHttpRequest, as fetch reports no upload progress.
 */
function putDocument(
  target: { url: string; headers: Record<string, string> },
  file: File,
  onProgress: (sent: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', target.url);
    for (const [name, value] of Object.entries(target.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () =>
      xhr.status < 300
        ? resolve()
        : reject(new Error(`The document's upload was refused (${xhr.status}). Choose the file again and retry.`));
    xhr.onerror = () => reject(new Error("The document's upload failed: check your connection, then retry."));
    xhr.send(file);
  });
}

/** A job's progress as it arrives, or (`upload`) the bytes of a document sent so far. */
function Progress(props: { label: string; progress?: JobProgress; upload?: { sent: number; total: number } }) {
  const { progress: p, upload: u } = props;
  const pct = u ? Math.round((u.sent / u.total) * 100) : (p?.pct ?? 0);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return (
    <div class="job-progress">
      <label for="job-progress">{props.label}</label>
      <progress id="job-progress" max={100} value={pct}>
        {pct}%
      </progress>
      <p role="status" aria-live="polite" class="muted" data-via={p?.via}>
        {u
          ? `uploading · ${pct}% · ${mb(u.sent)} of ${mb(u.total)}`
          : p
            ? `${p.status} · ${p.pct}%${p.total ? ` · ${p.done} of ${p.total}` : ''}`
            : 'queued'}
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
      const started = await ok(api.POST('/impex/export', { body, bodySerializer: multipart }));
      const record = await followJob(client, started.job_id, { onProgress: setProgress });
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
      <p>
        Writes this environment (groups, servers, networks, services, links, connections) as a YAML document you can
        keep, review or import elsewhere.
      </p>
      <button type="button" class="primary" onClick={start} disabled={running}>
        Export environment
      </button>
      {(running || progress) && !done && <Progress label="Export progress" progress={progress} />}
      <Alert>{error}</Alert>
      {done?.download_url && (
        <p class="ok">
          Export ready.{' '}
          <a href={done.download_url} download>
            Download document
          </a>{' '}
          <span class="muted">(link valid until {when(done.link_expires_at)})</span>
        </p>
      )}
    </section>
  );
}

type Stage =
  | { step: 'choose' }
  | { step: 'planning' | 'applying'; progress?: JobProgress; upload?: { sent: number; total: number } }
  | { step: 'planned' | 'applied'; record: ImpexRecord };

/**
 * Import: choose a YAML or JSON document, plan it (a dry run: nothing is written) and see the plan as a
 * diff, then apply it with live progress, and see the result. The document is uploaded once, to a
 * presigned URL (any size the API takes, with the bytes sent shown), and the plan and the import both
 * read it by its upload_id.
 */
function ImportPanel(props: { projectId: string; envId: string; onDone: () => void }) {
  const [file, setFile] = useState<File>();
  const [uploadId, setUploadId] = useState<string>();
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);

  const choose = (f: File | undefined) => {
    setError(undefined);
    setStage({ step: 'choose' });
    setUploadId(undefined);
    setFile(f);
  };

  /** The document in storage: uploaded at the first plan, reused by the import. */
  const upload = async (f: File, progress: (sent: number, total: number) => void): Promise<string> => {
    if (uploadId) return uploadId;
    const json = /\.json$/i.test(f.name) || f.type === 'application/json';
    const body: UploadUrlBody = {
      project_id: props.projectId,
      environment_id: props.envId,
      size: f.size,
      content_type: json ? 'application/json' : 'application/yaml',
    };
    const target = await ok(api.POST('/impex/upload-url', { body }));
    await putDocument(target, f, (sent) => progress(sent, Math.max(1, f.size)));
    setUploadId(target.upload_id);
    return target.upload_id;
  };

  const run = async (dryRun: boolean) => {
    if (!file) return setError('Choose a configuration document first.');
    setError(undefined);
    const step = dryRun ? 'planning' : 'applying';
    setStage({ step });
    try {
      const upload_id = await upload(file, (sent, total) => setStage({ step, upload: { sent, total } }));
      const body: ImportBody = {
        project_id: props.projectId,
        environment_id: props.envId,
        dry_run: dryRun ? 'true' : 'false',
        upload_id,
        filename: file.name,
      };
      const started = await ok(api.POST('/impex/import', { body, bodySerializer: multipart }));
      const record = await followJob(client, started.job_id, {
        onProgress: (progress) => setStage({ step, progress }),
      });
      setStage({ step: dryRun ? 'planned' : 'applied', record });
      if (record.status === 'failed') setError(record.error ?? 'The import failed. Please try again.');
      if (record.status === 'cancelled') setError('The import was cancelled: what it wrote before it stopped stays.');
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
      <p>
        Entities are matched by name: the same name is updated, a new one created. Nothing is deleted. Plan first to see
        what would change.
      </p>
      <div class="field">
        <label for="import-file">Configuration document (YAML or JSON)</label>
        <input
          id="import-file"
          ref={input}
          type="file"
          accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml"
          disabled={busy}
          onChange={(e) => void choose(e.currentTarget.files?.[0])}
          aria-describedby="import-file-hint"
        />
        <small id="import-file-hint">It is uploaded once, then planned and imported from storage.</small>
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={!file || busy} onClick={() => void run(true)}>
          Plan import
        </button>
        {stage.step === 'planned' && stage.record.status === 'succeeded' && (
          <button type="button" class="primary" onClick={() => void run(false)}>
            Apply import
          </button>
        )}
      </div>
      <Alert>{error}</Alert>
      {busy && (
        <Progress
          label={stage.step === 'planning' ? 'Planning progress' : 'Import progress'}
          progress={stage.progress}
          upload={stage.upload}
        />
      )}
      {(stage.step === 'planned' || stage.step === 'applied') && stage.record.report && (
        <>
          <h3>
            {stage.step === 'planned'
              ? `Plan of ${file?.name ?? 'the document'}`
              : stage.record.status === 'succeeded'
                ? 'Import finished'
                : 'Import stopped'}
          </h3>
          {stage.step === 'applied' && stage.record.status === 'succeeded' && (
            <p class="ok" role="status">
              Imported {file?.name}: {stage.record.report.summary.create} created, {stage.record.report.summary.update}{' '}
              updated. <a href={to.services(props.projectId, props.envId)}>See the services</a>
            </p>
          )}
          <ImportDiff report={stage.record.report} applied={stage.step === 'applied'} />
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
