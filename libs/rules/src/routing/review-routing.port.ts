import type { ItemIdentifier } from '#warden/ingestion';
import type { Route, RoutingReport, RoutingReportRequest } from '../domain/review-routing.js';

export type { Route, RoutingReport, RoutingReportRequest };

/** What routing rules read of the item itself (fields, ALL_TEXT, ANY_IMAGE, ITEM, CREATOR). */
export interface RoutingContent {
  readonly data: { readonly [field: string]: unknown };
  readonly creator: ItemIdentifier | null;
}

/**
 * Which queue an item bound for review goes to: the organization's routing rules (`report`) or
 * appeal routing rules (`appeal`), in order, evaluated by the rules engine's condition evaluator
 * with its signals; the first that passes routes. Null: none passed (the caller's default queue).
 *
 * A port the rules engine owns and provides (REVIEW_ROUTING; docs/architecture.md, "Ports"),
 * called in process by the review module: the callbacks below are asked only when a rule needs
 * them, which a message on the query bus could not carry as plain data.
 */
export interface ReviewRouting {
  route(request: RoutingRequest): Promise<Route | null>;
}

export interface RoutingRequest {
  readonly orgId: string;
  readonly kind: 'report' | 'appeal';
  readonly item: { readonly id: string; readonly typeId: string };
  /**
   * The item's data and creator, asked for only when a routing rule looks at them (most route
   * on the report's inputs alone): the caller may read the item on demand.
   */
  readonly content: () => Promise<RoutingContent> | RoutingContent;
  /**
   * The routing inputs REPORT_REASON, REPORTED_POLICY and REPORT_COUNT (counted only when a rule
   * reads it: the caller may count on demand); null for requests that are no report (a rule's
   * ENQUEUE_TO_MRT): conditions on them are then unknown.
   */
  readonly report: RoutingReportRequest | null;
}

export const REVIEW_ROUTING = Symbol('ReviewRouting');
