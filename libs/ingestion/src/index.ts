export { IngestionModule } from './ingestion.module.js';
export { SubmitItemsCommand, type AcceptedItem, type SubmitItemsOptions } from './commands/submit-items/submit-items.command.js';
export type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
// Stream names are part of the event contract (auditors and the legacy endpoint read item streams).
export { itemStream } from './domain/item.streams.js';
// "The item at version n": how other modules read an item's versions, without decoding its stream.
export {
  itemVersionAt,
  itemVersionOf,
  itemVersionsBetween,
  latestItemVersion,
  latestSubmission,
  type ItemVersion,
  type LatestSubmission,
} from './item-versions.js';
