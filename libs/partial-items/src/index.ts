export { PartialItemsModule } from './partial-items.module.js';
export { FetchWholeItemsCommand } from './commands/fetch-whole-items/fetch-whole-items.command.js';
export { partialItemsRequest, type PartialItemsRequest } from './domain/partial-items-exchange.js';
