export { IngestionModule } from './ingestion.module.js';
export { SubmitItemsCommand, type AcceptedItem, type SubmitItemsOptions } from './commands/submit-items/submit-items.command.js';
export { latestSubmission, type LatestSubmission } from './latest-submission.js';
export * from './contracts.js';
