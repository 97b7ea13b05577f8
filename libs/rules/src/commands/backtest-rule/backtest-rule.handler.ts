import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { EVENT_STORE } from '#warden/storage';
import { completeEvaluation } from '../../domain/rule-results.js';
import { type RunReport, runOverHistory } from '../../evaluation/item-history.js';
import { EvaluationRecorder } from '../../evaluation/evaluation-recorder.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { BacktestRuleCommand } from './backtest-rule.command.js';

@CommandHandler(BacktestRuleCommand)
export class BacktestRuleHandler implements ICommandHandler<BacktestRuleCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly evaluator: ItemEvaluator,
    private readonly recorder: EvaluationRecorder,
  ) {}

  execute(command: BacktestRuleCommand): Promise<RunReport> {
    return runOverHistory(this.events, command.context.orgId, command.rule, command.since, async (item, version) => {
      // A backtest is never recorded (`likelyNew`: no record to look for), and caps nothing.
      const options = { environment: 'BACKTEST', rules: [command.rule], likelyNew: true } as const;
      const prepared = await this.evaluator.prepare(command.context, item, version, options);
      if (!prepared) return undefined;
      if (prepared.kind === 'recorded') return prepared.evaluation;
      // Only the media it hashed are recorded, so that the next run reads them instead of fetching again.
      await this.recorder.recordMedia(prepared);
      return completeEvaluation(prepared.draft, new Set());
    });
  }
}
