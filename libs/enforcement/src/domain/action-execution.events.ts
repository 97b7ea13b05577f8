import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import type { Penalty } from '#warden/catalog/contracts';
import type { DomainEvent } from '#warden/kernel';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';

/** The item an executed action is taken on, as callbacks name it. */
export interface ExecutedItem {
  id: string;
  typeId: string;
  typeName: string;
}

/** A policy as callbacks name it. */
export interface ExecutedPolicy {
  id: string;
  name: string;
  penalty: Penalty;
}

/**
 * The platform executed an action through POST /api/v1/actions (docs/enforcement.md, "`POST /api/v1/actions`: actions the platform executes"). `creator`:
 * the user concerned when Warden knows them (the item itself for a USER item; the creator of the
 * item's latest stored version), else null. `reportedItems`: the items whose open review jobs the
 * action answers (the review module closes them with AUTOMATIC_CLOSE). `actorId`: who at the
 * platform executed it, as the platform names them (an opaque id), or null.
 */
export type ActionExecuted = DomainEvent<
  'ActionExecuted',
  {
    executionId: string;
    action: { id: string; kind: 'CUSTOMER_DEFINED_ACTION' | 'ENQUEUE_TO_MRT' | 'ENQUEUE_TO_CHILD_SAFETY' };
    item: ExecutedItem;
    /** The item's latest stored version (its last revision); 0 when Warden does not know the item. */
    version: number;
    policies: ExecutedPolicy[];
    reportedItems: Array<{ id: string; typeId: string }>;
    creator: { id: string; typeId: string } | null;
    actorId: string | null;
    executedAt: string;
  }
>;

/**
 * What an executed action appends beside ActionExecuted: a customer-defined action's callback
 * (ActionCallbackRequested with trigger 'post-actions', the callbacks module's contract; the strikes
 * reactor and the scores projection count it like a decision's, keyed by its delivery id), or an
 * ENQUEUE_TO_MRT / ENQUEUE_TO_CHILD_SAFETY action's ReviewEnqueueRequested (review's contract).
 */
export type ActionExecutionEvent = ActionExecuted | ActionCallbackRequested | ReviewEnqueueRequested;
