import { Query } from '@nestjs/cqrs';
import type { ChildSafetyReportDoc } from '../../projections/child-safety-reports.projection.js';

export type ChildSafetyReportView = Omit<ChildSafetyReportDoc, 'orgId'>;

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
