import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetLiveCatalogQuery, type PolicyDefinition, type QueueDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, itemVersionAt } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
import { NOTHING_READ, REVIEW_ROUTING, type ReviewRouting, type RoutingCatalog, type RoutingContent, routingInputs } from '#warden/rules';
import { EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { defaultQueueOf, effectiveQueues } from '../domain/effective-queues.js';
import type { JobPolicy } from '../domain/review-job.events.js';
import { REPORT_COUNTS, REPORT_COUNTS_PROJECTION, type ReportCountDoc, reportCountDocId } from '../projections/report-counts.projection.js';

export interface RoutedQueue {
  readonly queueId: string;
  /** The routing rule that picked it; null: no rule passed (the default queue). */
  readonly routedBy: { readonly id: string; readonly name: string } | null;
}

/**
 * What an enqueue needs of the organization's configuration, read once at the start of its pass
 * and passed down (docs/architecture.md, "Main flows"): the queues, the policies a job names, and
 * what the routing evaluates (item types, the routing rules of the kind, the banks).
 */
export interface ReviewCatalog {
  /** `report`: the routing rules (reports, rules' enqueues); `appeal`: the appeal routing rules. */
  readonly kind: 'report' | 'appeal';
  /** As jobs go to them: the declared queues, the built-in ones beside (effective-queues.ts). */
  readonly queues: readonly QueueDefinition[];
  readonly policies: readonly PolicyDefinition[];
  readonly routing: RoutingCatalog;
}

/** The item type's display name as jobs keep it; its id once the type is archived. */
export const typeNameIn = (catalog: ReviewCatalog, typeId: string): string => catalog.routing.itemTypes.find((t) => t.id === typeId)?.name ?? typeId;

/** The policies a job names, as jobs keep them (name and penalty); an archived one is left out. */
export const jobPoliciesIn = (catalog: ReviewCatalog, ids: readonly string[]): JobPolicy[] =>
  catalog.policies.filter((p) => ids.includes(p.id)).map((p) => ({ id: p.id, name: p.name, penalty: p.penalty }));

/** The request's report inputs: its reason and policy, and the log position of its ReportSubmitted. */
export interface ReportToRoute {
  readonly reason: string | null;
  readonly policyId: string | null;
  readonly position: number;
}

/**
 * Where an item bound for review goes: the organization's routing rules, evaluated by the rules
 * engine (its REVIEW_ROUTING port, called once with everything it evaluates) on the item version
 * the request names; the default queue when none passes. A rule naming a queue the organization
 * no longer has also falls back to the default.
 */
@Injectable()
export class ReviewRouter {
  constructor(
    private readonly queries: QueryBus,
    @Inject(REVIEW_ROUTING) private readonly routing: ReviewRouting,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  /**
   * The one read of the catalog an enqueue makes. The item was accepted against a catalog this
   * process may not have read yet (applied moments ago, or read models catching up after a start):
   * its type is expected, so the catalog is caught up when it is missing.
   */
  async catalog(orgId: string, kind: 'report' | 'appeal', typeId: string): Promise<ReviewCatalog> {
    const rulesKind = kind === 'appeal' ? 'appealRoutingRule' : 'routingRule';
    const read = await this.queries.execute(
      new GetLiveCatalogQuery(orgId, ['itemType', 'policy', 'queue', 'textBank', 'hashBank', rulesKind], { itemType: [typeId] }),
    );
    return {
      kind,
      queues: effectiveQueues(read.queue),
      policies: read.policy,
      routing: { itemTypes: read.itemType, routingRules: read[rulesKind], textBanks: read.textBank, hashBanks: read.hashBank },
    };
  }

  /**
   * `item`: the version the request names (read back from the log only if a routing rule looks at
   * it), or its content when the caller has it (an appeal's). `report`: null for a request that is
   * no report (a rule's ENQUEUE_TO_MRT, an appeal).
   */
  async route(
    orgId: string,
    catalog: ReviewCatalog,
    item: ItemIdentifier & ({ readonly version: number } | { readonly content: RoutingContent }),
    report: ReportToRoute | null,
  ): Promise<RoutedQueue> {
    const { id, typeId } = item;
    const reads = routingInputs(catalog.routing, typeId);
    const [content, count] = await Promise.all([
      'content' in item ? item.content : reads.content ? this.itemAt(orgId, item, item.version) : NOTHING_READ,
      report && reads.reportCount ? this.reportCount(orgId, item, report.position) : undefined,
    ]);
    const route = await this.routing.route({
      orgId,
      item: { id, typeId },
      catalog: catalog.routing,
      content,
      report: report && { reason: report.reason, policyId: report.policyId, ...(count === undefined ? {} : { count }) },
    });
    const { queues } = catalog;
    if (route && queues.some((q) => q.id === route.queueId)) return { queueId: route.queueId, routedBy: route.rule };
    const fallback = (catalog.kind === 'appeal' ? queues.find((q) => q.isAppealsDefault) : undefined) ?? defaultQueueOf(queues);
    return { queueId: fallback.id, routedBy: null };
  }

  /**
   * How many reports of the item Warden has recorded, this one and every earlier one included: the
   * report-counts read model once it reflects the log at least up to the report being routed (at
   * `position`; reports of the item that came in just after may be counted too, as before). In a
   * worker the projection's own subscription gets there moments later; elsewhere it is caught up.
   */
  private async reportCount(orgId: string, item: ItemIdentifier, position: number): Promise<number> {
    await this.projections.catchUpTo(REPORT_COUNTS_PROJECTION, position);
    const doc = await this.readStore.get<ReportCountDoc>(REPORT_COUNTS, reportCountDocId(orgId, item));
    return doc?.reportIds.length ?? 0;
  }

  /** The item's data at a version (unsealed, ingestion's reader); empty once its personal data was erased. */
  private async itemAt(orgId: string, item: ItemIdentifier, version: number): Promise<RoutingContent> {
    const found = await itemVersionAt(this.events, orgId, { id: item.id, typeId: item.typeId }, version);
    if (!found || found.erased) return { data: {}, creator: null };
    return { data: found.data ?? {}, creator: found.creator };
  }
}
