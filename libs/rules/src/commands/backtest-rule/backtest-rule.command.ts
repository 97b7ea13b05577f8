import { Command } from '@nestjs/cqrs';
import type { RuleDefinition } from '../../../../catalog/src/index.js';
import type { CommandContext } from '../../../../kernel/src/index.js';
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
