import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { routingReadsItem, routingReadsReportCount, routingRulesFor, type Route, type RoutingReport } from '../../domain/review-routing.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { RouteForReviewQuery, type RoutingContent } from './route-for-review.query.js';

/** Stands in for the item when no rule reads it: nothing of it is looked at. */
const NOTHING_READ: RoutingContent = { data: {}, creator: null };

@QueryHandler(RouteForReviewQuery)
export class RouteForReviewHandler implements IQueryHandler<RouteForReviewQuery> {
  constructor(
    private readonly queries: QueryBus,
    private readonly evaluator: ItemEvaluator,
  ) {}

  async execute(query: RouteForReviewQuery): Promise<Route | null> {
    const kind = query.kind === 'appeal' ? 'appealRoutingRule' : 'routingRule';
    const all = await this.queries.execute(new GetLiveEntitiesQuery(query.orgId, kind));
    const rules = routingRulesFor(all, query.item.typeId);
    if (rules.length === 0) return null;
    const content = routingReadsItem(rules) ? await query.content() : NOTHING_READ;
    const asked = query.report;
    // Counting an item's reports waits for their read model to reach the report: only for a rule that may read the count.
    const counted = asked && routingReadsReportCount(rules) ? { count: await asked.count() } : {};
    const report: RoutingReport | null = asked && { reason: asked.reason, policyId: asked.policyId, ...counted };
    return this.evaluator.route(query.orgId, { ...query.item, ...content }, rules, report);
  }
}
