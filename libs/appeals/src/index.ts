export { AppealsModule } from './appeals.module.js';
export * from './contracts.js';
export { AppealsReportQuery, type AppealsReport } from './queries/appeals-report/appeals-report.query.js';
