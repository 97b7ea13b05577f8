import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { RunReport } from '../../evaluation/item-history.js';

/** Runs one configured rule over the stored items, publishing its actions (environment RETROACTION). */
export class RetroactRuleCommand extends Command<RunReport> {
  constructor(
    readonly ruleId: string,
    readonly since: Date | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}
