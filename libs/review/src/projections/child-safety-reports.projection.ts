import type { Projection } from '#warden/eventstore';
import type { ReadDocument } from '#warden/readstore';
import type { ChildSafetyReportRecorded } from '../domain/review-job.events.js';

export const CHILD_SAFETY_REPORTS_PROJECTION = 'review-child-safety-reports';
export const CHILD_SAFETY_REPORTS = 'child_safety_reports';

/** One recorded child-safety report, for the export (what the event records, and the organization). */
export type ChildSafetyReportDoc = Omit<ChildSafetyReportRecorded['data'], 'subject'> & { orgId: string };

export const childSafetyReportDocId = (orgId: string, reportId: string) => `${orgId}:${reportId}`;

/**
 * The child-safety reports moderators recorded, for the export. It reads the reports' reasons
 * (personal data): after an erasure a rebuild shows them as null. A report is written once, so
 * a redelivery rewrites the same document.
 */
export const childSafetyReportsProjection: Projection = {
  name: CHILD_SAFETY_REPORTS_PROJECTION,
  collections: [CHILD_SAFETY_REPORTS],
  eventTypes: ['ChildSafetyReportRecorded'],
  needsPersonalData: true,
  indexes: [{ collection: CHILD_SAFETY_REPORTS, fields: ['orgId', 'recordedAt'] }],
  apply(event, ctx) {
    const orgId = event.metadata.orgId;
    const { subject: _subject, ...report } = event.data as unknown as ChildSafetyReportRecorded['data'];
    const doc: ChildSafetyReportDoc = { ...report, orgId };
    ctx.put(CHILD_SAFETY_REPORTS, childSafetyReportDocId(orgId, report.reportId), doc as unknown as ReadDocument);
  },
};
