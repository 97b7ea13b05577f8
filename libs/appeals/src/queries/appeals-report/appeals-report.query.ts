import { Query } from '@nestjs/cqrs';

export interface AppealCountsView {
  /** Appeals appealed (appealedAt) within the window. */
  received: number;
  /** Of those, decided so far. */
  decided: number;
  /** ACCEPT_APPEAL: the action was overturned. */
  accepted: number;
  rejected: number;
  /** accepted / decided; null when none was decided. */
  overturnRate: number | null;
}

export type AppealReportRow = AppealCountsView & { id: string; name: string };

export interface AppealsReport {
  from: string;
  to: string;
  /** Every appeal once. */
  total: AppealCountsView;
  /** Per rule of the appealed callbacks, most appeals first. */
  rules: AppealReportRow[];
  /** Per policy of the appealed callbacks, most appeals first. */
  policies: AppealReportRow[];
  /** Appeals of callbacks a decision sent (a moderator's, or POST /api/v1/actions). */
  moderators: AppealCountsView;
  /** Appeals of actions Warden sent no callback for that names a rule, a policy or a decision. */
  unattributed: AppealCountsView;
}

/** The appeals report of an organization over a checked window (raw query-string values). */
export class AppealsReportQuery extends Query<AppealsReport> {
  constructor(
    readonly orgId: string,
    readonly from: unknown,
    readonly to: unknown,
  ) {
    super();
  }
}
