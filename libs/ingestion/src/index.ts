export { IngestionModule } from './ingestion.module.js';
export { SubmitItemsCommand, type AcceptedItem, type SubmitItemsOptions } from './commands/submit-items/submit-items.command.js';
export type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
// Stream names are part of the event contract (auditors and the legacy endpoint read item streams).
export { itemStream } from './domain/item.streams.js';
export { latestSubmission, type LatestSubmission } from './latest-submission.js';
