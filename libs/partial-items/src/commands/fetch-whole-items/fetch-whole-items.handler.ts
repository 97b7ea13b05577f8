import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { PartialFetchOutcome } from '#warden/rules';
import { PartialItemsClient } from '../../fetch/partial-items-client.js';
import { FetchWholeItemsCommand } from './fetch-whole-items.command.js';

@CommandHandler(FetchWholeItemsCommand)
export class FetchWholeItemsHandler implements ICommandHandler<FetchWholeItemsCommand> {
  constructor(private readonly client: PartialItemsClient) {}

  execute(command: FetchWholeItemsCommand): Promise<PartialFetchOutcome[]> {
    return this.client.fetchItems(command.context, command.items, command.reason);
  }
}
