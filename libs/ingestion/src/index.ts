export { IngestionModule } from './ingestion.module.js';
export { reportOf } from './reports.js';
export { SubmitItemsCommand, type AcceptedItem, type SubmitItemsOptions } from './commands/submit-items/submit-items.command.js';
export * from './contracts.js';
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
