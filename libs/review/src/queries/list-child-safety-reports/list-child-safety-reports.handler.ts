import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { CHILD_SAFETY_REPORTS, CHILD_SAFETY_REPORTS_PROJECTION, type ChildSafetyReportDoc } from '../../projections/child-safety-reports.projection.js';
import { type ChildSafetyReportPage, type ChildSafetyReportView, ListChildSafetyReportsQuery } from './list-child-safety-reports.query.js';

@QueryHandler(ListChildSafetyReportsQuery)
export class ListChildSafetyReportsHandler implements IQueryHandler<ListChildSafetyReportsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: ListChildSafetyReportsQuery): Promise<ChildSafetyReportPage> {
    // A report recorded a moment ago is listed: the export is what a moderator checks after deciding.
    await this.projections.catchUp(CHILD_SAFETY_REPORTS_PROJECTION);
    const filter = { orgId: query.orgId };
    const [docs, total] = await Promise.all([
      this.readStore.find<ChildSafetyReportDoc>(CHILD_SAFETY_REPORTS, filter, {
        // Both keys one way, as the index has them: on MongoDB a sort the index does not serve
        // ranks every report of the organization in memory for each page.
        sort: [
          { field: 'recordedAt', direction: 'desc' },
          { field: 'reportId', direction: 'desc' },
        ],
        limit: query.limit,
        skip: query.offset,
      }),
      this.readStore.count(CHILD_SAFETY_REPORTS, filter),
    ]);
    return {
      reports: docs.map(({ orgId: _org, incident, ...view }) => ({ ...view, incident: incidentView(incident) })),
      total,
      limit: query.limit,
      offset: query.offset,
      nextOffset: query.offset + docs.length < total ? query.offset + docs.length : null,
    };
  }
}

/**
 * The incident as listed: the reasons still readable, in order. A document written by an earlier
 * release (before the read model was rebuilt) still holds `reportReasons` itself.
 */
function incidentView(
  incident: ChildSafetyReportDoc['incident'] | (Omit<NonNullable<ChildSafetyReportDoc['incident']>, 'reports'> & { reportReasons?: string[] }),
): ChildSafetyReportView['incident'] {
  if (!incident) return null;
  const { moderatorReason, note } = incident;
  const reasons =
    'reports' in incident && Array.isArray(incident.reports)
      ? incident.reports.flatMap((r) => (typeof r.reason === 'string' ? [r.reason] : []))
      : ((incident as { reportReasons?: string[] }).reportReasons ?? []);
  return { reportReasons: reasons, moderatorReason, note };
}
