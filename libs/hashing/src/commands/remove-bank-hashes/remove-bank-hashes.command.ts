import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface RemoveReport {
  readonly bankId: string;
  readonly removed: number;
  /** Listed but not removed: not in the bank, or the configuration's too (the file's to drop). */
  readonly notImported: number;
  readonly events: number;
}

/** Removes hashes an import put in a configured bank, from a file (`bank remove`). */
export class RemoveBankHashesCommand extends Command<RemoveReport> {
  constructor(
    readonly bankId: string,
    readonly text: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
