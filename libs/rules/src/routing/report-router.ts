import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID, defaultQueueOf, effectiveQueues, GetLiveCatalogQuery, type LiveCatalog } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier, ReportSubmitted } from '#warden/ingestion';
import type { CommandContext, RecordedOf } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { reportRoutingStream } from '../domain/evaluation.streams.js';
import { reportRoutingDecider } from '../domain/report-routing.decider.js';
import type { ReportRouted } from '../domain/report-routing.events.js';
import { REPORT_COUNTS, REPORT_COUNTS_PROJECTION, type ReportCountDoc, reportCountDocId, reportCountOf } from '../projections/report-counts.projection.js';
import { NOTHING_READ, routedQueue, type RoutingCatalog, routingInputs } from './review-routing.port.js';
import { routingContentAt } from './routing-content.js';
import { RulesReviewRouting } from './rules-review-routing.js';

/** What a report's routing reads of the organization's configuration: once, for the whole pass. */
const ROUTING_CATALOG = ['itemType', 'policy', 'queue', 'textBank', 'hashBank', 'routingRule'] as const;

type RoutingRead = LiveCatalog<(typeof ROUTING_CATALOG)[number]>;

/**
 * A user report's routing (docs/architecture.md, "Main flows", report → job): `csam: true` goes
 * to child-safety before any routing rule; otherwise the first routing rule that passes, with the
 * routing inputs REPORT_REASON, REPORTED_POLICY and REPORT_COUNT, picks the queue, and none (or a
 * rule naming a queue the organization no longer has) the default queue. The outcome is recorded
 * as ReportRouted, with what the job keeps of the configuration, for the review module to open
 * the job from: one read of the catalog, here, for the whole pass.
 */
@Injectable()
export class ReportRouter {
  constructor(
    private readonly queries: QueryBus,
    private readonly routing: RulesReviewRouting,
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async route(event: RecordedOf<ReportSubmitted>): Promise<void> {
    const { data, metadata } = event;
    const orgId = metadata.orgId;
    const item = { id: data.reportedItem.id, typeId: data.reportedItem.typeId };
    // The item was accepted against a catalog this process may not have read yet (applied
    // moments ago, or read models catching up after a start): its type is expected.
    const catalog: RoutingRead = await this.queries.execute(new GetLiveCatalogQuery(orgId, [...ROUTING_CATALOG], { itemType: [item.typeId] }));
    const queues = effectiveQueues(catalog.queue);
    // Child-safety before any routing rule.
    const { queueId, routedBy } = data.csam
      ? { queueId: CHILD_SAFETY_QUEUE_ID, routedBy: null }
      : routedQueue(await this.routeByRules(event, catalog), queues, defaultQueueOf(queues));
    const route: ReportRouted['data'] = {
      reportId: data.reportId,
      item: { ...item, typeName: catalog.itemType.find((t) => t.id === item.typeId)?.name ?? item.typeId },
      version: data.reportedItem.version,
      queueId,
      routedBy,
      report: {
        reporter: data.reporter,
        reportedAt: data.reportedAt,
        recordedAt: metadata.occurredAt,
        hasReason: data.reason !== null && data.reason !== '',
        policyId: data.policyId,
        csam: data.csam,
      },
      policies: catalog.policy.filter((p) => p.id === data.policyId).map((p) => ({ id: p.id, name: p.name, penalty: p.penalty })),
      reason: data.reason,
      subject: data.subject,
    };
    const context: CommandContext = { orgId, correlationId: metadata.correlationId, causationId: event.id, actor: 'rules' };
    // One stream per report, routed once: decided without reading it (a re-run's append finds it and records nothing).
    await this.aggregates.handle(reportRoutingStream(orgId, data.reportId), reportRoutingDecider, { type: 'RouteReport', route }, context, { newStream: true });
  }

  /**
   * The routing rules on the report: what they read (`routingInputs`) is read first, and only that:
   * the item version the report names, and the count of the item's reports.
   */
  private async routeByRules(event: RecordedOf<ReportSubmitted>, read: RoutingRead) {
    const { data, metadata, position } = event;
    const orgId = metadata.orgId;
    const item = { id: data.reportedItem.id, typeId: data.reportedItem.typeId };
    const catalog: RoutingCatalog = { itemTypes: read.itemType, routingRules: read.routingRule, textBanks: read.textBank, hashBanks: read.hashBank };
    const reads = routingInputs(catalog, item.typeId);
    const [content, count] = await Promise.all([
      reads.content ? routingContentAt(this.events, orgId, item, data.reportedItem.version) : NOTHING_READ,
      reads.reportCount ? this.reportCount(orgId, item, position) : undefined,
    ]);
    return this.routing.route({
      orgId,
      item,
      catalog,
      content,
      report: { reason: data.reason, policyId: data.policyId, ...(count === undefined ? {} : { count }) },
    });
  }

  /**
   * How many reports of the item Warden has recorded, this one and every earlier one included: the
   * report-counts read model once it reflects the log at least up to the report being routed (at
   * `position`; reports of the item that came in just after may be counted too). In a worker the
   * projection's own subscription gets there moments later; elsewhere it is caught up.
   */
  private async reportCount(orgId: string, item: ItemIdentifier, position: number): Promise<number> {
    await this.projections.catchUpTo(REPORT_COUNTS_PROJECTION, position);
    const doc = await this.readStore.get<ReportCountDoc>(REPORT_COUNTS, reportCountDocId(orgId, item));
    return reportCountOf(doc);
  }
}
