import type { Penalty } from '#warden/catalog/contracts';
import type { Reporter } from '#warden/ingestion/contracts';
import type { DomainEvent } from '#warden/kernel';

/**
 * Where a user report goes for review, decided by the rules engine from the report
 * (ingestion's ReportSubmitted) and the organization's routing rules: the review module opens the
 * job from this alone, reading no catalog (docs/architecture.md, "Main flows"). It carries what
 * the job keeps of the configuration as it was when the report was routed (the item type's name,
 * the reported policy), so a change applied in between cannot split one routing in two.
 */
export type ReportRouted = DomainEvent<
  'ReportRouted',
  {
    reportId: string;
    /** The reported item as jobs keep it: its type's display name, its id once the type is archived. */
    item: { id: string; typeId: string; typeName: string };
    /** The item version the report names. */
    version: number;
    /** The queue picked: child-safety for `csam`, the first routing rule's that passed, or the default queue. */
    queueId: string;
    /** The routing rule that picked it; null: child-safety, or no rule passed (the default queue). */
    routedBy: { id: string; name: string } | null;
    report: {
      reporter: Reporter;
      /** When the reporter reported, as sent. */
      reportedAt: string;
      /** When Warden recorded the report (its ReportSubmitted). */
      recordedAt: string;
      hasReason: boolean;
      policyId: string | null;
      csam: boolean;
    };
    /** The reported policy as jobs keep it (name and penalty); none when there is none or it was archived. */
    policies: Array<{ id: string; name: string; penalty: Penalty }>;
    /** Sealed under the reporter's key: what the reporter wrote, carried on into the job. */
    reason: string | null;
    /** The reporter's subject (whose key seals `reason`). */
    subject: string;
  }
>;

export type ReportRoutingEvent = ReportRouted;
