import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { routingRulesFor, type Route } from '../../domain/review-routing.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { RouteForReviewQuery } from './route-for-review.query.js';

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
    return this.evaluator.route(query.orgId, query.item, rules, query.report);
  }
}
