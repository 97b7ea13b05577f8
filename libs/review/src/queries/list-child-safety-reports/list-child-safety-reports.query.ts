import { Query } from '@nestjs/cqrs';
import type { ChildSafetyReportDoc } from '../../projections/child-safety-reports.projection.js';

/** As the export lists it: the reports' reasons alone (`reportReasons`, the ones still readable), as since the first release. */
export type ChildSafetyReportView = Omit<ChildSafetyReportDoc, 'orgId' | 'incident'> & {
  incident: { reportReasons: string[]; moderatorReason: string | null; note: string | null } | null;
};

export interface ChildSafetyReportPage {
  reports: ChildSafetyReportView[];
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
}

/** The organization's recorded child-safety reports, newest first, a page at a time. */
export class ListChildSafetyReportsQuery extends Query<ChildSafetyReportPage> {
  constructor(
    readonly orgId: string,
    readonly limit: number,
    readonly offset: number,
  ) {
    super();
  }
}
