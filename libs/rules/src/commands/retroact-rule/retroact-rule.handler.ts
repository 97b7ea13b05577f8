import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ItemSubmitted } from '../../../../ingestion/src/index.js';
import type { EventStore } from '../../../../eventstore/src/index.js';
import { notFound } from '../../../../kernel/src/index.js';
import { EVENT_STORE } from '../../../../platform/src/index.js';
import { CatalogSnapshots } from '../../evaluation/catalog-snapshots.js';
import { latestSubmissions, type RunReport } from '../../evaluation/item-history.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { RetroactRuleCommand } from './retroact-rule.command.js';

@CommandHandler(RetroactRuleCommand)
export class RetroactRuleHandler implements ICommandHandler<RetroactRuleCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly snapshots: CatalogSnapshots,
    private readonly evaluator: ItemEvaluator,
  ) {}

  async execute(command: RetroactRuleCommand): Promise<RunReport> {
    const started = Date.now();
    const { orgId } = command.context;
    const rule = (await this.snapshots.get(orgId)).rulesById.get(command.ruleId);
    if (!rule) throw notFound(`No rule ${command.ruleId} in organization ${orgId}`);
    const items = (await latestSubmissions(this.events, orgId, command.since)).filter(
      (e) => rule.itemTypeIds.length === 0 || rule.itemTypeIds.includes((e.data as unknown as ItemSubmitted['data']).typeId),
    );
    let matched = 0;
    let unknown = 0;
    let actionsPublished = 0;
    const examples: RunReport['examples'] = [];
    for (const event of items) {
      const data = event.data as unknown as ItemSubmitted['data'];
      const result = await this.evaluator.run(
        { ...command.context, causationId: event.id },
        { id: data.itemId, typeId: data.typeId, data: data.data, creator: data.creator, subject: data.subject, source: data.source },
        event.revision,
        { environment: 'RETROACTION', rules: [rule] },
      );
      const outcome = result?.rules[0]?.outcome;
      if (outcome === 'unknown') unknown++;
      if (outcome !== 'passed') continue;
      matched++;
      actionsPublished += result!.actions.length;
      if (examples.length < 20) examples.push({ id: data.itemId, typeId: data.typeId, version: event.revision });
    }
    return { ruleId: rule.id, scanned: items.length, matched, unknown, actionsPublished, milliseconds: Date.now() - started, examples };
  }
}
