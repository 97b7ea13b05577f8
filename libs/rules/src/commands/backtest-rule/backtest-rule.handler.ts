import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { EVENT_STORE } from '#warden/storage';
import { type RunReport, runOverHistory } from '../../evaluation/item-history.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { BacktestRuleCommand } from './backtest-rule.command.js';

@CommandHandler(BacktestRuleCommand)
export class BacktestRuleHandler implements ICommandHandler<BacktestRuleCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly evaluator: ItemEvaluator,
  ) {}

  execute(command: BacktestRuleCommand): Promise<RunReport> {
    return runOverHistory(this.events, command.context.orgId, command.rule, command.since, (item, version) =>
      this.evaluator.dryRun(command.context, item, version, [command.rule]),
    );
  }
}
