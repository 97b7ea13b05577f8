import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { QueueDefinition } from '../../domain/catalog.model.js';

export interface DefineQueueResult {
  /** The queue as defined afterwards, with the file's defaults filled in. */
  readonly queue: QueueDefinition;
  /** False: the queue was already so and nothing was recorded. */
  readonly changed: boolean;
}

/**
 * Creates (`create`) or replaces (`update`, the queue `queueId`) one review queue outside a
 * configuration file (the console). Recorded on the organization's configuration stream like an
 * apply, so the next `warden apply --dry-run` of a file without it shows the drift.
 */
export class DefineQueueCommand extends Command<DefineQueueResult> {
  constructor(
    readonly orgId: string,
    readonly mode: 'create' | 'update',
    readonly queueId: string | null,
    readonly definition: Readonly<Record<string, unknown>>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
