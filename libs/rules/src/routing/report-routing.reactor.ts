import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { ReportSubmitted } from '#warden/ingestion';
import type { ReportRouter } from './report-router.js';

/**
 * The reactor's name, kept from when the review module routed reports itself: its checkpoint
 * carries on, so an upgrade routes every report once (docs/operations.md, "Upgrading: reports
 * routed by the rules engine").
 */
import { REPORT_ROUTING_REACTOR } from '../contracts.js';

export { REPORT_ROUTING_REACTOR };

/**
 * Every recorded report is routed (report-router.ts) and its route recorded as ReportRouted, for
 * the review module to open the job from. A re-run routes again and records nothing (one route per
 * report, report-routing.decider.ts).
 */
export function reportRoutingReactor(router: ReportRouter): Projection {
  return eventProjection<ReportSubmitted>({
    name: REPORT_ROUTING_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReportSubmitted'],
    // The report's reason is a routing input (REPORT_REASON) and travels on, sealed, into the job.
    needsPersonalData: true,
    // Reports at once (their appends share group commits); one item's reports in log order, so
    // that REPORT_COUNT counts them in the order they came.
    keyOf: (event) => {
      const { reportedItem } = event.data;
      return orderingKey(event, `item:${reportedItem.typeId}:${reportedItem.id}`);
    },
    apply: (event) => router.route(event),
  });
}
