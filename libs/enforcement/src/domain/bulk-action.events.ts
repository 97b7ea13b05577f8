import type { DomainEvent } from '#warden/kernel';

/** An item a bulk action names, as the manager gave it: the customer's id and its item type. */
export interface BulkActionItem {
  id: string;
  typeId: string;
}

/** The console user who asked for a bulk action, as its executions' callbacks name them. */
export interface BulkActionRequester {
  userId: string;
  /** Their email, sealed under their own key (ENFORCEMENT_PERSONAL_DATA): null once their console account was erased. */
  email: string | null;
}

/**
 * A manager asked for one action over many items (docs/bulk-actions.md, "The bulk operation"):
 * the items (unique, in the order given, at most 10,000), the action, its policies and the reason.
 * `requestedBy` is the console user who asked. The items are worked through `chunkSize`
 * at a time, in order; each chunk's outcome is a BulkActionChunkExecuted.
 */
export type BulkActionRequested = DomainEvent<
  'BulkActionRequested',
  {
    bulkActionId: string;
    actionId: string;
    policyIds: string[];
    reason: string;
    items: BulkActionItem[];
    chunkSize: number;
    /** Who asked: the console actor (`user:<id>`), as the metadata's actor. */
    requestedBy: string;
    /**
     * The same console user with their email, which the executions' callbacks send as `actorEmail`
     * (docs/callbacks.md). Absent on requests recorded before it was: their callbacks name no actor.
     */
    requester?: BulkActionRequester;
    requestedAt: string;
  }
>;

/**
 * One chunk of the items done (the chunk'th, from 0): `executed` items got a new execution,
 * `alreadyActioned` had one already (the same action, policies and reason: never acted on twice),
 * `missing` are not stored in the organization (never acted on), `failed` were refused when
 * executed (the catalog changed since the request: an archived action or policy).
 */
export type BulkActionChunkExecuted = DomainEvent<
  'BulkActionChunkExecuted',
  {
    bulkActionId: string;
    chunk: number;
    executed: number;
    alreadyActioned: number;
    missing: number;
    failed: number;
    executedAt: string;
  }
>;

/** The manager stopped it: no further chunk starts; what was executed stays. */
export type BulkActionCancelled = DomainEvent<'BulkActionCancelled', { bulkActionId: string; cancelledAt: string }>;

/** Every chunk done. */
export type BulkActionCompleted = DomainEvent<'BulkActionCompleted', { bulkActionId: string; completedAt: string }>;

export type BulkActionEvent = BulkActionRequested | BulkActionChunkExecuted | BulkActionCancelled | BulkActionCompleted;
