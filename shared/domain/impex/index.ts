/** The impex context (above catalog): the environment document (export, parse, plan, apply), export/import jobs and their records, signed links, live progress. */
export {
  IMPEX_API_VERSION, environmentDocument, documentJsonSchema, exampleDocument,
  type EnvironmentDocument, type DocumentSpec, type DocumentGroup, type DocumentFloor, type DocumentNetwork, type DocumentService, type DocumentLink, type DocumentAttachment,
} from './document';
export { buildExportDocument, exportParts, PART_ITEMS, type DocumentPart } from './export';
export type { ImportError } from './parse';
export { parseDocument, toYaml, yamlText } from './yaml';
export { planImport, applyImport, undoInterruptedImport, type ImportPlan, type ImportReport, type ImportItem, type ImportAction } from './import';
export * from './types';
export * from './record-entity';
export * from './records';
export * from './record-reads';
export * from './cancel';
export * from './links';
export * from './jobs';
export * from './progress';
export { HEARTBEAT_MS, STALL_MS, JOB_STALLED, JOB_DEAD_LETTERED } from './job-liveness';
