import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface ImportReport {
  readonly bankId: string;
  readonly added: number;
  readonly alreadyPresent: number;
  readonly events: number;
}

/** Adds hashes to a configured bank from a file (`bank import`); `apply` never removes them. */
export class ImportBankHashesCommand extends Command<ImportReport> {
  constructor(
    readonly bankId: string,
    readonly text: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
