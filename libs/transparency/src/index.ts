export { TransparencyModule, type TransparencyOptions } from './transparency.module.js';
export {
  ListStatementsQuery,
  type StatementPage,
  type StatementSubmission,
  type StatementView,
  type SubmissionState,
} from './queries/list-statements/list-statements.query.js';
export { TransparencyReportQuery, type TransparencyReport } from './queries/transparency-report/transparency-report.query.js';
export { TRANSPARENCY_PROJECTION } from './projections/transparency.projection.js';
export * from './contracts.js';
export { reportCsv } from './queries/transparency-report/report-csv.js';
export { ListItemStatementsQuery } from './queries/list-item-statements/list-item-statements.query.js';
