export { IngestionModule } from './ingestion.module.js';
export { SubmitItemsCommand, type AcceptedItem, type SubmittedItemInput } from './commands/submit-items/submit-items.command.js';
export { ITEM_SUBMITTED, itemKey, type ItemIdentifier, type ItemSubmitted } from './domain/item.events.js';
export { itemStream } from './domain/item.streams.js';
export { resolveCreator } from './domain/creator.js';
