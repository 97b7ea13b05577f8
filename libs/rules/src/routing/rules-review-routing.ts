import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { routingReadsItem, routingReadsReportCount, routingRulesFor, type Route, type RoutingReport } from '../domain/review-routing.js';
import { ItemEvaluator } from '../evaluation/item-evaluator.js';
import type { ReviewRouting, RoutingContent, RoutingRequest } from './review-routing.port.js';

/** Stands in for the item when no rule reads it: nothing of it is looked at. */
const NOTHING_READ: RoutingContent = { data: {}, creator: null };

/** The rules engine's side of REVIEW_ROUTING (review-routing.port.ts). */
@Injectable()
export class RulesReviewRouting implements ReviewRouting {
  constructor(
    private readonly queries: QueryBus,
    private readonly evaluator: ItemEvaluator,
  ) {}

  async route(request: RoutingRequest): Promise<Route | null> {
    const kind = request.kind === 'appeal' ? 'appealRoutingRule' : 'routingRule';
    const all = await this.queries.execute(new GetLiveEntitiesQuery(request.orgId, kind));
    const rules = routingRulesFor(all, request.item.typeId);
    if (rules.length === 0) return null;
    const content = routingReadsItem(rules) ? await request.content() : NOTHING_READ;
    const asked = request.report;
    // Counting an item's reports waits for their read model to reach the report: only for a rule that may read the count.
    const counted = asked && routingReadsReportCount(rules) ? { count: await asked.count() } : {};
    const report: RoutingReport | null = asked && { reason: asked.reason, policyId: asked.policyId, ...counted };
    return this.evaluator.route(request.orgId, { ...request.item, ...content }, rules, report);
  }
}
