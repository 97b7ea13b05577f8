import { Command } from '@nestjs/cqrs';
import type { RuleDefinition } from '#warden/catalog';
import type { CommandContext } from '#warden/kernel';
import type { RunReport } from '../../evaluation/item-history.js';

/** Runs a candidate rule over the stored items and only reports: nothing is recorded or published. */
export class BacktestRuleCommand extends Command<RunReport> {
  constructor(
    readonly rule: RuleDefinition,
    readonly since: Date | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}
