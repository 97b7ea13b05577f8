import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { notFound } from '#warden/kernel';
import { EVENT_STORE } from '#warden/storage';
import { CatalogSnapshots } from '../../evaluation/catalog-snapshots.js';
import { type RunReport, runOverHistory } from '../../evaluation/item-history.js';
import { EvaluationRecorder } from '../../evaluation/evaluation-recorder.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { RetroactRuleCommand } from './retroact-rule.command.js';

@CommandHandler(RetroactRuleCommand)
export class RetroactRuleHandler implements ICommandHandler<RetroactRuleCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly snapshots: CatalogSnapshots,
    private readonly evaluator: ItemEvaluator,
    private readonly recorder: EvaluationRecorder,
  ) {}

  async execute(command: RetroactRuleCommand): Promise<RunReport> {
    const { orgId } = command.context;
    const rule = (await this.snapshots.get(orgId)).rulesById.get(command.ruleId);
    if (!rule) throw notFound(`No rule ${command.ruleId} in organization ${orgId}`);
    return runOverHistory(this.events, orgId, rule, command.since, async (item, version, causationId) => {
      const prepared = await this.evaluator.prepare({ ...command.context, causationId }, item, version, { environment: 'RETROACTION', rules: [rule] });
      const run = prepared && (await this.recorder.record(prepared));
      // A retroaction run again finds its evaluations recorded: their actions were published then.
      return run && { rules: run.evaluation.rules, actions: run.recordedNow ? run.evaluation.actions : [] };
    });
  }
}
