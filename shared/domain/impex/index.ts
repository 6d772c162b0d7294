/** The impex context (above catalog): the environment document (export, parse, plan, apply), export/import jobs and their records, signed links, live progress. */
export {
  IMPEX_API_VERSION,
  environmentDocument,
  documentJsonSchema,
  exampleDocument,
  type EnvironmentDocument,
  type DocumentSpec,
  type DocumentService,
} from './document.ts';
export { buildExportDocument, exportParts, type DocumentPart } from './export.ts';
export { parseDocument, toYaml, yamlText } from './yaml.ts';
export { planImport, applyImport, undoInterruptedImport } from './import/index.ts';
export { impexRecordView } from './record-entity.ts';
export { impexJobMessage, startExport, importUploadUrl, startImport, type ImpexJobMessage } from './job-start.ts';
export { downloadExport } from './download.ts';
export { recordById } from './records.ts';
export { importExportHistory, jobStatus } from './record-reads.ts';
export { CANCEL_NOT_ALLOWED, cancelJob } from './cancel.ts';
export { signedDownloadUrl } from './links.ts';
export { runImpexJob } from './jobs.ts';
export { progressTicket, impexProgressOf } from './progress.ts';
export { STALL_MS, JOB_DEAD_LETTERED } from './job-liveness.ts';
