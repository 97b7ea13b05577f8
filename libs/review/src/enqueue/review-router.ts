import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type QueueDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, itemVersionAt } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
import { REVIEW_ROUTING, type ReviewRouting, type RoutingContent } from '#warden/rules';
import { EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { defaultQueueOf, effectiveQueues } from '../domain/effective-queues.js';
import { REPORT_COUNTS, REPORT_COUNTS_PROJECTION, type ReportCountDoc, reportCountDocId } from '../projections/report-counts.projection.js';

export interface RoutedQueue {
  readonly queueId: string;
  /** The routing rule that picked it; null: no rule passed (the default queue). */
  readonly routedBy: { readonly id: string; readonly name: string } | null;
}

/**
 * Where an item bound for review goes: the organization's routing rules, evaluated by the rules
 * engine (its REVIEW_ROUTING port) on the item version the request names; the default queue when none
 * passes. A rule naming a queue the organization no longer has also falls back to the default.
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

  async queues(orgId: string): Promise<QueueDefinition[]> {
    return effectiveQueues(await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'queue')));
  }

  /**
   * `report`: the report's reason and policy, and the log position of its ReportSubmitted; null
   * for a request that is no report (a rule's ENQUEUE_TO_MRT).
   */
  async route(
    orgId: string,
    item: ItemIdentifier,
    version: number,
    report: { readonly reason: string | null; readonly policyId: string | null; readonly position: number } | null,
  ): Promise<RoutedQueue> {
    const queues = await this.queues(orgId);
    // The item is read back from the log, and its reports counted, only if a routing rule looks at them.
    const route = await this.routing.route({
      orgId,
      kind: 'report',
      item: { id: item.id, typeId: item.typeId },
      content: () => this.itemAt(orgId, item, version),
      report: report && { reason: report.reason, policyId: report.policyId, count: () => this.reportCount(orgId, item, report.position) },
    });
    if (route && queues.some((q) => q.id === route.queueId)) return { queueId: route.queueId, routedBy: route.rule };
    return { queueId: defaultQueueOf(queues).id, routedBy: null };
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

  /** The item's data at a version (unsealed); empty once its personal data was erased. */
  private async itemAt(orgId: string, item: ItemIdentifier, version: number): Promise<RoutingContent> {
    const found = await itemVersionAt(this.events, orgId, item, version);
    if (!found || found.erased) return { data: {}, creator: null };
    return { data: found.data ?? {}, creator: found.creator };
  }
}
