import { Query } from '@nestjs/cqrs';

export type ReportSource = 'notice' | 'trusted-flagger' | 'own-initiative';

/** The transparency report of a period (docs/transparency.md, "The report"). */
export interface TransparencyReport {
  from: string;
  to: string;
  /** Reports received, by the DSA category of the policy they name (NOT_SPECIFIED_NOTICE: none named; UNMAPPED: a policy without a mapping). */
  notices: { total: number; byCategory: Array<{ category: string; count: number }> };
  /** Reports received by the reporter's type, and whether the organization marks it a trusted flagger. */
  reportsByReporterType: Array<{ reporterType: string; trustedFlagger: boolean; count: number }>;
  /** Restricting actions (every published action but those mapped dsa: false), by the statement's policy × source × automated means. */
  actions: {
    total: number;
    rows: Array<{
      policyId: string | null;
      category: string | null;
      source: ReportSource;
      automatedDetection: boolean;
      automatedDecision: boolean;
      count: number;
    }>;
  };
  /** From the first unanswered report of an item to the action that answered it; seconds, rounded down to 3 significant digits. */
  noticeToAction: { count: number; medianSeconds: number | null; p90Seconds: number | null };
  /** Appeals: received (appealed in the period), decided in it, overturned (accepted) of those, and the median time to decision. */
  complaints: { received: number; decided: number; overturned: number; medianDurationSeconds: number | null };
  /** Restricting actions whose mapping suspends or terminates the account. */
  accountSuspensions: number;
  accountTerminations: number;
}

export class TransparencyReportQuery extends Query<TransparencyReport> {
  constructor(
    readonly orgId: string,
    readonly from: unknown,
    readonly to: unknown,
  ) {
    super();
  }
}
