import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';
import type { ActionKind } from '#warden/catalog/contracts';
import { type Decider, deterministicId } from '#warden/kernel';
import type { ActionExecuted, ActionExecutionEvent, ExecutedItem, ExecutedPolicy } from './action-execution.events.js';

/** A console user's part in an execution (a bulk action's manager and reason); `email` null once their console account was erased. */
export interface ExecutionModerator {
  readonly userId: string;
  readonly email: string | null;
  readonly reason: string;
}

/** Executes an action once, as checked against the catalog by the handler. */
export interface ExecuteAction {
  readonly type: 'ExecuteAction';
  readonly orgId: string;
  readonly executionId: string;
  readonly action: { readonly id: string; readonly kind: ActionKind; readonly body: { readonly [key: string]: unknown } };
  readonly item: ExecutedItem;
  readonly version: number;
  readonly policies: readonly ExecutedPolicy[];
  readonly reportedItems: ReadonlyArray<{ readonly id: string; readonly typeId: string }>;
  readonly creator: { readonly id: string; readonly typeId: string } | null;
  readonly actorId: string | null;
  /**
   * The console user who asked for the execution and why (a bulk action's manager and reason): named
   * in the callback as a decision's moderator is (docs/callbacks.md). Absent for `POST /api/v1/actions`.
   */
  readonly moderator?: ExecutionModerator;
  /** The injected clock's now, ISO 8601. */
  readonly now: string;
}

export type ActionExecutionCommand = ExecuteAction;

export interface ActionExecutionState {
  readonly executed: boolean;
}

export const initialActionExecutionState: ActionExecutionState = { executed: false };

/** The delivery of an execution's callback: derived, so a re-run of the command requests the same one. */
export const executionDeliveryId = (orgId: string, executionId: string) => deterministicId('post-actions-delivery', orgId, executionId);

/** The review request of an execution's enqueue action. */
export const executionReviewRequestId = (orgId: string, executionId: string) => deterministicId('post-actions-review-job', orgId, executionId);

/**
 * An action executed by the platform (`action_execution-…`): recorded once, with what it asks of
 * the other modules in the same append (the callback to send, or the review request), so that
 * neither is requested without the execution nor the execution without it.
 */
export const actionExecutionDecider: Decider<ActionExecutionCommand, ActionExecutionState, ActionExecutionEvent> = {
  eventTypes: { ActionExecuted: true, ActionCallbackRequested: true, ReviewEnqueueRequested: true },
  initialState: initialActionExecutionState,

  decide(command, state) {
    if (state.executed) return [];
    const policies = command.policies.map((p) => ({ id: p.id, name: p.name, penalty: p.penalty }));
    const item = { id: command.item.id, typeId: command.item.typeId, typeName: command.item.typeName };
    const creator = command.creator ? { id: command.creator.id, typeId: command.creator.typeId } : null;
    const executed: ActionExecuted = {
      type: 'ActionExecuted',
      data: {
        executionId: command.executionId,
        action: { id: command.action.id, kind: command.action.kind },
        item,
        version: command.version,
        policies,
        reportedItems: command.reportedItems.map((r) => ({ id: r.id, typeId: r.typeId })),
        creator,
        actorId: command.actorId,
        executedAt: command.now,
      },
    };
    return [executed, requestOf(command, item, policies, creator)];
  },

  evolve(state, event) {
    return event.type === 'ActionExecuted' ? { executed: true } : state;
  },
};

function requestOf(
  command: ExecuteAction,
  item: ExecutedItem,
  policies: ExecutedPolicy[],
  creator: { id: string; typeId: string } | null,
): ActionCallbackRequested | ReviewEnqueueRequested {
  if (command.action.kind === 'CUSTOMER_DEFINED_ACTION') {
    return {
      type: 'ActionCallbackRequested',
      data: {
        deliveryId: executionDeliveryId(command.orgId, command.executionId),
        item,
        action: { id: command.action.id },
        policies,
        rules: [],
        custom: { ...command.action.body },
        creator,
        environment: 'MANUAL',
        trigger: 'post-actions',
        ...(command.moderator && {
          actor: { userId: command.moderator.userId, email: command.moderator.email },
          decisionReason: command.moderator.reason,
        }),
      },
    };
  }
  return {
    type: 'ReviewEnqueueRequested',
    data: {
      jobId: executionReviewRequestId(command.orgId, command.executionId),
      item,
      version: command.version,
      queueId: command.action.kind === 'ENQUEUE_TO_CHILD_SAFETY' ? 'child-safety' : 'default',
      source: 'POST_ACTIONS',
      actionId: command.action.id,
      policies,
      rules: [],
      environment: 'MANUAL',
    },
  };
}
