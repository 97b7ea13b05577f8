export { AppealsModule } from './appeals.module.js';
export type { AppealSubmitted, AppealDecided, AppealEvent } from './domain/appeal.events.js';
export { appealStream } from './domain/appeal.streams.js';
export { AppealsReportQuery, type AppealsReport } from './queries/appeals-report/appeals-report.query.js';
