import { eventProjection } from '#warden/eventstore';
import { deterministicId } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { ReportSubmitted } from '#warden/ingestion/contracts';

export const REPORT_COUNTS_PROJECTION = 'report-counts';
export const REPORT_COUNTS = 'report_counts';

/** The reports Warden has recorded of one item (REPORT_COUNT of routing is their number). */
export interface ReportCountDoc {
  orgId: string;
  itemTypeId: string;
  itemId: string;
  /** How many reports: a redelivered report is not counted twice (the document's position, below). */
  count?: number;
  /** Before `count`: every report's id (a list that grew with every report, copied whole each time). */
  reportIds?: string[];
}

/** The number of reports a document records, in either form. */
export const reportCountOf = (doc: ReportCountDoc | undefined): number => doc?.count ?? doc?.reportIds?.length ?? 0;

export const reportCountDocId = (orgId: string, item: { typeId: string; id: string }) => deterministicId('report-count', orgId, item.typeId, item.id);

/**
 * Reports per item, for the routing input REPORT_COUNT. Idempotent by construction: the document
 * carries the position of the last report applied, and the unit of work skips a redelivered one
 * (each ReportSubmitted is one report: its id is the service's). A count, not the reports' ids: a
 * mass-reported item's document stays a few bytes. (Job documents count only the reports merged
 * into one job; this counts every report of the item, across jobs and queues.)
 */
export const reportCountsProjection = eventProjection<ReportSubmitted>({
  name: REPORT_COUNTS_PROJECTION,
  collections: [REPORT_COUNTS],
  eventTypes: ['ReportSubmitted'],
  // Ids only: the sealed reason and context items are not read.
  needsPersonalData: false,
  async apply(recorded, ctx) {
    const orgId = recorded.metadata.orgId;
    const { data } = recorded;
    const id = reportCountDocId(orgId, data.reportedItem);
    const previous = await ctx.get<ReportCountDoc>(REPORT_COUNTS, id);
    // A document of the earlier form that already lists this report (an upgrade's redelivery).
    if (previous?.reportIds?.includes(data.reportId)) return;
    const doc: ReportCountDoc = {
      orgId,
      itemTypeId: data.reportedItem.typeId,
      itemId: data.reportedItem.id,
      count: reportCountOf(previous) + 1,
    };
    ctx.put(REPORT_COUNTS, id, doc as unknown as ReadDocument);
  },
});
