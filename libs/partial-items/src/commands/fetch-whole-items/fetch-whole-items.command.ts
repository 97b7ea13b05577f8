import { Command } from '@nestjs/cqrs';
import type { ItemIdentifier } from '#warden/ingestion';
import type { CommandContext } from '#warden/kernel';
import type { PartialFetchOutcome, PartialFetchReason } from '#warden/rules';

/**
 * Fetches whole items from the organization's partial-items endpoint (docs/partial-items.md) and
 * records them as item versions (source `partial-fetch`): the review console's "load the full
 * item", and related items Warden never received. One outcome per identifier, in order; a failure
 * carries its reason and is not thrown.
 */
export class FetchWholeItemsCommand extends Command<PartialFetchOutcome[]> {
  constructor(
    readonly items: readonly ItemIdentifier[],
    readonly reason: PartialFetchReason,
    readonly context: CommandContext,
  ) {
    super();
  }
}
