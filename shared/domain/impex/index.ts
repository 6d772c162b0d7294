/** The import/export context's public face (issue 13): the document, export, parse, plan and apply. Routes and workers import only this. */
export {
  IMPEX_API_VERSION, environmentDocument, documentJsonSchema, exampleDocument, toYaml,
  type EnvironmentDocument, type DocumentSpec, type DocumentGroup, type DocumentFloor, type DocumentNetwork, type DocumentService, type DocumentLink, type DocumentAttachment,
} from './document';
export { buildExportDocument } from './export';
export { parseDocument, type ImportError } from './parse';
export { planImport, applyImport, type ImportPlan, type ImportReport, type ImportItem, type ImportAction } from './import';
