import { Module } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { PARTIAL_ITEMS } from '#warden/rules';
import { FetchWholeItemsHandler } from './commands/fetch-whole-items/fetch-whole-items.handler.js';
import { PartialItemsClient } from './fetch/partial-items-client.js';

/**
 * The partial-items interface (docs/partial-items.md): whole items fetched
 * from the customer's endpoint. An extension of the rules engine (PARTIAL_ITEMS), composed with it
 * in the application module; the review console asks through FetchWholeItemsCommand.
 */
@Module({
  imports: [CatalogModule],
  providers: [PartialItemsClient, { provide: PARTIAL_ITEMS, useExisting: PartialItemsClient }, FetchWholeItemsHandler],
  exports: [PARTIAL_ITEMS],
})
export class PartialItemsModule {}
