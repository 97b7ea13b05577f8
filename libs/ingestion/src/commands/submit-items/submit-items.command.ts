import { Command } from '@nestjs/cqrs';
import type { ItemTypeDefinition } from '#warden/catalog/contracts';
import type { CommandContext } from '#warden/kernel';
import type { ItemIdentifier, ItemSubmitted } from '../../domain/item.events.js';

export interface AcceptedItem extends ItemIdentifier {
  /** The item's version: the revision of its ItemSubmitted event. */
  version: number;
  /** Whose data key seals the version's data (its creator, or the item itself): what a GDPR erasure names. */
  subject: string;
}

export interface SubmitItemsOptions {
  readonly source: ItemSubmitted['data']['source'];
  /** Where the items are in the request: errors point at `${pointer}/${index}/…`. */
  readonly pointer: string;
  /**
   * One item sent as an object rather than in a list (the reported item of a report): errors
   * point at `${pointer}/…`, without an index.
   */
  readonly single?: boolean;
  readonly fallbackCreator?: ItemIdentifier | null;
  /**
   * Names the submission for good (an inbound topic's organization and event id): each item's
   * ItemSubmitted gets an id derived from it and the item's stream, so submitting it again (a
   * redelivered message) appends nothing and records no second version.
   */
  readonly submissionId?: string;
  /**
   * The organization's item types as the caller read them for its own check (a report's handler):
   * the items are validated against these and the catalog is not asked again (docs/architecture.md,
   * "Main flows"). An item whose type is not among them is looked up as without them.
   */
  readonly itemTypes?: ReadonlyMap<string, ItemTypeDefinition>;
}

/**
 * Validates every item, its shape and its item type's fields (all or nothing), and records each
 * as an ItemSubmitted event. The list itself is already a non-empty array (request DTO).
 */
export class SubmitItemsCommand extends Command<AcceptedItem[]> {
  constructor(
    readonly items: readonly unknown[],
    readonly context: CommandContext,
    readonly options: SubmitItemsOptions = { source: 'items', pointer: '/items' },
  ) {
    super();
  }
}
