import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { statusAt, utcDay } from '../../domain/rule-selection.js';
import { RULE_ACTIVITY_PROJECTION } from '../../projections/rule-activity.projection.js';
import {
  RULE_DAILY_ACTIONS,
  RULE_MATCHES,
  type RuleDailyActionsDoc,
  ruleDailyActionsDocId,
  type RuleMatchesDoc,
  ruleMatchesDocId,
} from '../../projections/rule-activity.read-model.js';
import { ListRulesQuery, type RuleSummary } from './list-rules.query.js';

@QueryHandler(ListRulesQuery)
export class ListRulesHandler implements IQueryHandler<ListRulesQuery> {
  constructor(
    private readonly queries: QueryBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(query: ListRulesQuery): Promise<RuleSummary[]> {
    const [rules] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(query.orgId, 'rule')),
      this.projections.catchUp(RULE_ACTIVITY_PROJECTION),
    ]);
    const now = this.clock.now();
    const today = utcDay(now);
    return Promise.all(
      rules.map(async (rule) => {
        const [matches, day] = await Promise.all([
          this.readStore.get<RuleMatchesDoc>(RULE_MATCHES, ruleMatchesDocId(query.orgId, rule.id)),
          this.readStore.get<RuleDailyActionsDoc>(RULE_DAILY_ACTIONS, ruleDailyActionsDocId(query.orgId, today, rule.id)),
        ]);
        return {
          id: rule.id,
          name: rule.name,
          status: statusAt(rule, now),
          expiresAt: rule.expiresAt,
          itemTypeIds: rule.itemTypeIds,
          actionIds: rule.actionIds,
          maxDailyActions: rule.maxDailyActions,
          actionsToday: (rule.maxDailyActions !== null ? day?.counted : day?.acted) ?? 0,
          recentMatches: matches?.matches ?? [],
        };
      }),
    );
  }
}
