import { Injectable } from '@nestjs/common';
import { routingRulesFor, type Route } from '../domain/review-routing.js';
import { ItemEvaluator } from '../evaluation/item-evaluator.js';
import type { ReviewRouting, RoutingRequest } from './review-routing.port.js';

/** The rules engine's side of REVIEW_ROUTING (review-routing.port.ts): evaluates what it is handed, reads no catalog. */
@Injectable()
export class RulesReviewRouting implements ReviewRouting {
  constructor(private readonly evaluator: ItemEvaluator) {}

  async route(request: RoutingRequest): Promise<Route | null> {
    const { catalog, item } = request;
    const rules = routingRulesFor(catalog.routingRules, item.typeId);
    if (rules.length === 0) return null;
    const itemType = catalog.itemTypes.find((t) => t.id === item.typeId);
    if (!itemType) return null;
    const banks = {
      textBanks: new Map(catalog.textBanks.map((b) => [b.id, b] as const)),
      hashBanks: catalog.hashBanks.map((b) => ({ id: b.id, hashType: b.hashType, maxDistance: b.maxDistance })),
    };
    return this.evaluator.route(request.orgId, { ...item, ...request.content }, itemType, banks, rules, request.report);
  }
}
