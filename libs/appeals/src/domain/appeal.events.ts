import type { DomainEvent } from '#warden/kernel';

export interface Appellant {
  id: string;
  typeId: string;
}

/** An item of the appeal's context, stored as sent. */
export interface AppealContextItem {
  id: string;
  typeId: string;
  data: { [field: string]: unknown };
}

/**
 * A user appeal (docs/review.md, "Appeals"), recorded once per `appealId`. The actioned item's
 * identifier stays readable (the job and the decision callback need it after an erasure); what
 * the appellant sent about themselves and their content — who they are, their reason, the item's
 * data, the context items — is personal data, sealed under the appellant's key (`subject`).
 */
export type AppealSubmitted = DomainEvent<
  'AppealSubmitted',
  {
    appealId: string;
    /** Sealed. */
    appealedBy: Appellant;
    appealedAt: string;
    actionedItem: { id: string; typeId: string };
    /** Sealed. The actioned item's data as the platform sent it. */
    actionedItemData: { [field: string]: unknown };
    actionsTaken: string[];
    /** Sealed. */
    appealReason: string | null;
    violatingPolicyIds: string[];
    /** Sealed. */
    additionalItems: AppealContextItem[];
    subject: string;
  }
>;

/**
 * The appeal's outcome: a moderator's ACCEPT_APPEAL (the appealed actions were wrong) or
 * REJECT_APPEAL (they stand) on the appeal's review job. Recorded once. It names what was appealed
 * (ids only, nothing sealed), so that enforcement reverses the appealed actions' strikes and score
 * penalty on ACCEPT from this event alone. Recorded before they were added: absent, and nothing is
 * reversed.
 */
export type AppealDecided = DomainEvent<
  'AppealDecided',
  {
    appealId: string;
    decision: 'ACCEPT' | 'REJECT';
    jobId: string;
    /** The review decision that decided it. */
    decisionId: string;
    decidedBy: { userId: string };
    decidedAt: string;
    actionedItem?: { id: string; typeId: string };
    actionsTaken?: string[];
  }
>;

export type AppealEvent = AppealSubmitted | AppealDecided;
