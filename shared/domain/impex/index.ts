/** The impex context (above catalog): the environment document (export, parse, plan, apply), export/import jobs and their records, signed links, live progress. */
export {
  IMPEX_API_VERSION,
  environmentDocument,
  documentJsonSchema,
  exampleDocument,
  type EnvironmentDocument,
  type DocumentSpec,
  type DocumentService,
} from './document';
export { buildExportDocument, exportParts, type DocumentPart } from './export';
export { parseDocument, toYaml, yamlText } from './yaml';
export { planImport, applyImport, undoInterruptedImport } from './import';
export { impexRecordView } from './record-entity';
export { impexJobMessage, startExport, importUploadUrl, startImport, type ImpexJobMessage } from './job-start';
export { downloadExport } from './download';
export { recordById } from './records';
export { importExportHistory, jobStatus } from './record-reads';
export { CANCEL_NOT_ALLOWED, cancelJob } from './cancel';
export { signedDownloadUrl } from './links';
export { runImpexJob } from './jobs';
export { progressTicket, impexProgressOf } from './progress';
export { STALL_MS, JOB_DEAD_LETTERED } from './job-liveness';
