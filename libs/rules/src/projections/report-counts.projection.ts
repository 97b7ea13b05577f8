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
  /** Every report's id: a redelivered report is found here and not counted twice. */
  reportIds: string[];
}

export const reportCountDocId = (orgId: string, item: { typeId: string; id: string }) => deterministicId('report-count', orgId, item.typeId, item.id);

/**
 * Reports per item, for the routing input REPORT_COUNT. Idempotent by construction: a report is
 * counted by its id, so a redelivered event changes nothing. (Job documents count only the
 * reports merged into one job; this counts every report of the item, across jobs and queues.)
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
    if (previous?.reportIds.includes(data.reportId)) return;
    const doc: ReportCountDoc = {
      orgId,
      itemTypeId: data.reportedItem.typeId,
      itemId: data.reportedItem.id,
      reportIds: [...(previous?.reportIds ?? []), data.reportId],
    };
    ctx.put(REPORT_COUNTS, id, doc as unknown as ReadDocument);
  },
});
