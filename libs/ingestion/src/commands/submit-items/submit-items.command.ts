import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { ItemIdentifier } from '../../domain/item.events.js';

export interface AcceptedItem extends ItemIdentifier {
  /** The item's version: the revision of its ItemSubmitted event. */
  version: number;
}

/**
 * Validates every item, its shape and its item type's fields (all or nothing), and records each
 * as an ItemSubmitted event. The list itself is already a non-empty array (request DTO).
 */
export class SubmitItemsCommand extends Command<AcceptedItem[]> {
  constructor(
    readonly items: readonly unknown[],
    readonly context: CommandContext,
    readonly options: { source: 'items' | 'content'; pointer: string; fallbackCreator?: ItemIdentifier | null } = {
      source: 'items',
      pointer: '/items',
    },
  ) {
    super();
  }
}
