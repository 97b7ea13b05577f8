import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '../../../../eventstore/src/index.js';
import type { ItemSubmitted } from '../../../../ingestion/src/index.js';
import { EVENT_STORE } from '../../../../platform/src/index.js';
import { latestSubmissions, type RunReport } from '../../evaluation/item-history.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { BacktestRuleCommand } from './backtest-rule.command.js';

@CommandHandler(BacktestRuleCommand)
export class BacktestRuleHandler implements ICommandHandler<BacktestRuleCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly evaluator: ItemEvaluator,
  ) {}

  async execute(command: BacktestRuleCommand): Promise<RunReport> {
    const started = Date.now();
    const { rule } = command;
    const items = (await latestSubmissions(this.events, command.context.orgId, command.since)).filter(
      (e) => rule.itemTypeIds.length === 0 || rule.itemTypeIds.includes((e.data as unknown as ItemSubmitted['data']).typeId),
    );
    let matched = 0;
    let unknown = 0;
    const examples: RunReport['examples'] = [];
    for (const event of items) {
      const data = event.data as unknown as ItemSubmitted['data'];
      const result = await this.evaluator.dryRun(
        command.context,
        { id: data.itemId, typeId: data.typeId, data: data.data, creator: data.creator, subject: data.subject, source: data.source },
        event.revision,
        [rule],
      );
      const outcome = result?.rules[0]?.outcome;
      if (outcome === 'unknown') unknown++;
      if (outcome !== 'passed') continue;
      matched++;
      if (examples.length < 20) examples.push({ id: data.itemId, typeId: data.typeId, version: event.revision });
    }
    return { ruleId: rule.id, scanned: items.length, matched, unknown, actionsPublished: 0, milliseconds: Date.now() - started, examples };
  }
}
