export { TransparencyModule } from './transparency.module.js';
export { ListStatementsQuery, type StatementPage, type StatementView } from './queries/list-statements/list-statements.query.js';
export { TransparencyReportQuery, type TransparencyReport } from './queries/transparency-report/transparency-report.query.js';
export { TRANSPARENCY_PROJECTION } from './projections/transparency.projection.js';
export type { DatabaseStatement } from './domain/statement-of-reasons.js';
