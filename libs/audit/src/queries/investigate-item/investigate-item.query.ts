import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { HistoryRef } from '../../history/item-history.projection.js';
import type { InvestigationFrame, StandingView } from '../../investigate/investigation-reader.js';
import type { ActionView, AppealView, EvaluationView, JobView, ReportView, TimelineEntry, VersionView } from '../../investigate/investigation-parts.js';

export interface InvestigatedItem extends InvestigationFrame {
  item: HistoryRef;
  creator: HistoryRef | null;
  versions: { entries: VersionView[]; next: number | null };
  evaluations: EvaluationView[];
  actions: ActionView[];
  reports: ReportView[];
  jobs: JobView[];
  appeals: AppealView[];
  thread: Array<{ typeId: string; id: string; data: { [field: string]: unknown } | null; reported: boolean }>;
  timeline: { entries: TimelineEntry[]; earlier: boolean };
  creatorStanding: (StandingView & { recentItems: Array<{ typeId: string; id: string; submittedAt: string }> }) | null;
}

/**
 * All Warden knows of an item of the organization, each section bounded (docs/console.md,
 * "Investigate"): `before`, a log position, pages its versions back.
 */
export class InvestigateItemQuery extends Query<InvestigatedItem> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly id: string,
    readonly permissions: readonly Permission[],
    readonly before?: number,
  ) {
    super();
  }
}
