import type { DomainEvent } from '#warden/kernel';

/** Who reported: one of the organization's users (a USER item type). */
export interface Reporter {
  kind: 'user';
  id: string;
  typeId: string;
}

/** An item of the report's context (thread or additional items): stored leniently, as sent. */
export interface ContextItem {
  id: string;
  typeId: string;
  data: { [field: string]: unknown };
}

/**
 * A user report (docs/review.md, "`POST /api/v1/report`"). The reported item itself is recorded as an item version
 * (source `report`) in its own stream; `reportedItem.version` names it. What the reporter wrote
 * and the context items are personal data, sealed under the reporter's key (`subject`).
 */
export type ReportSubmitted = DomainEvent<
  'ReportSubmitted',
  {
    reportId: string;
    reporter: Reporter;
    reportedAt: string;
    reportedItem: { id: string; typeId: string; version: number };
    policyId: string | null;
    csam: boolean;
    /** Sealed. */
    reason: string | null;
    /** Sealed. Other items of the thread, in the order sent (the job view orders them by time). */
    thread: ContextItem[];
    /** Items of `thread` that were specifically reported (tagged in the job view). */
    reportedInThread: Array<{ id: string; typeId: string }>;
    /** Sealed. Other content shown alongside, for context. */
    additionalItems: ContextItem[];
    subject: string;
  }
>;

export type ReportEvent = ReportSubmitted;
