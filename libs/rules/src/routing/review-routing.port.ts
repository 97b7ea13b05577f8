import type { HashBankEntity, ItemTypeDefinition, OrderedRoutingRule, QueueDefinition, TextBankDefinition } from '#warden/catalog';
import type { ItemIdentifier } from '#warden/ingestion';
import { routingReadsItem, routingReadsReportCount, routingRulesFor, type Route, type RoutingReport } from '../domain/review-routing.js';

export type { Route, RoutingReport };

/** What routing rules read of the item itself (fields, ALL_TEXT, ANY_IMAGE, ITEM, CREATOR). */
export interface RoutingContent {
  readonly data: { readonly [field: string]: unknown };
  readonly creator: ItemIdentifier | null;
}

/**
 * The part of the organization's configuration a routing evaluates, as the caller read it (one
 * read of the catalog for the whole pass, docs/architecture.md, "Main flows"): the item types, the
 * routing rules of the kind asked (`routingRule` for reports and rules' enqueues,
 * `appealRoutingRule` for appeals), and the banks their signals look in.
 */
export interface RoutingCatalog {
  readonly itemTypes: readonly ItemTypeDefinition[];
  readonly routingRules: readonly OrderedRoutingRule[];
  readonly textBanks: readonly TextBankDefinition[];
  readonly hashBanks: readonly HashBankEntity[];
}

/**
 * Which queue an item bound for review goes to: the organization's routing rules (`report`) or
 * appeal routing rules (`appeal`), in order, evaluated by the rules engine's condition evaluator
 * with its signals; the first that passes routes. Null: none passed (the caller's default queue).
 *
 * A port the rules engine owns and provides (REVIEW_ROUTING; docs/architecture.md, "Ports"),
 * called in process by the review module, once per routing, with everything it evaluates: the
 * catalog as the caller read it, the item's content and the report's inputs. It asks nothing back
 * and reads nothing of the catalog itself; what the caller must read first says `routingInputs`.
 */
export interface ReviewRouting {
  route(request: RoutingRequest): Promise<Route | null>;
}

export interface RoutingRequest {
  readonly orgId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly catalog: RoutingCatalog;
  /**
   * The item's data and creator; when `routingInputs` says no rule reads them, whatever the
   * caller has (nothing of it is looked at then).
   */
  readonly content: RoutingContent;
  /**
   * The routing inputs REPORT_REASON, REPORTED_POLICY and REPORT_COUNT (`count` only when
   * `routingInputs` says a rule may read it); null for requests that are no report (a rule's
   * ENQUEUE_TO_MRT, an appeal): conditions on them are then unknown.
   */
  readonly report: RoutingReport | null;
}

/** What a routing of an item of `typeId` under these rules reads beyond the report's reason and policy. */
export interface RoutingInputs {
  /** A rule looks at the item itself (a field, the creator, its text or images): its content must be read. */
  readonly content: boolean;
  /** A rule may read how many reports the item has (REPORT_COUNT, or ITEM with the report's inputs). */
  readonly reportCount: boolean;
}

/**
 * What the caller reads before routing, so that the item is read back from the log, and its
 * reports counted, only when a routing rule looks at them (most route on the report's inputs
 * alone). Pure: no call into the engine.
 */
export function routingInputs(catalog: Pick<RoutingCatalog, 'routingRules'>, typeId: string): RoutingInputs {
  const rules = routingRulesFor(catalog.routingRules, typeId);
  return { content: routingReadsItem(rules), reportCount: routingReadsReportCount(rules) };
}

/** The queue a routing picked, and the rule that picked it (null: none did, the fallback queue). */
export interface RoutedQueue {
  readonly queueId: string;
  readonly routedBy: { readonly id: string; readonly name: string } | null;
}

/**
 * Where the item goes: the queue the passing rule names, unless the organization no longer has it;
 * the caller's fallback (the default queue, or the appeals' default) when no rule passed or it does not.
 */
export function routedQueue(route: Route | null, queues: readonly QueueDefinition[], fallback: QueueDefinition): RoutedQueue {
  if (route && queues.some((q) => q.id === route.queueId)) return { queueId: route.queueId, routedBy: route.rule };
  return { queueId: fallback.id, routedBy: null };
}

/** Stands in for the item when no rule reads it: nothing of it is looked at. */
export const NOTHING_READ: RoutingContent = { data: {}, creator: null };

export const REVIEW_ROUTING = Symbol('ReviewRouting');
