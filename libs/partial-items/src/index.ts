export { PartialItemsModule } from './partial-items.module.js';
export { FetchWholeItemsCommand } from './commands/fetch-whole-items/fetch-whole-items.command.js';
export * from './contracts.js';
