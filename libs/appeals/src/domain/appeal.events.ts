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
 * A user appeal (interface spec 4.3), recorded once per `appealId`. The actioned item's
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

export type AppealEvent = AppealSubmitted;
