import { conflict, type Decider, notFound } from '#warden/kernel';
import type { BulkActionEvent, BulkActionItem, BulkActionRequested } from './bulk-action.events.js';

/** What each chunk's items came to, summed. */
export interface BulkActionCounts {
  readonly executed: number;
  readonly alreadyActioned: number;
  readonly missing: number;
  readonly failed: number;
}

export interface RequestBulkAction {
  readonly type: 'RequestBulkAction';
  readonly bulkActionId: string;
  readonly actionId: string;
  readonly policyIds: readonly string[];
  readonly reason: string;
  /** Checked and unique (docs/bulk-actions.md, "Requests"). */
  readonly items: readonly BulkActionItem[];
  readonly chunkSize: number;
  readonly requestedBy: string;
  /** The signed-in console user who asked: their executions' callbacks name them (docs/callbacks.md). */
  readonly requester: { readonly userId: string; readonly email: string };
  readonly now: string;
}

/** The background reactor executed chunk `chunk` (from 0) and reports what its items came to. */
export interface RecordBulkActionChunk extends BulkActionCounts {
  readonly type: 'RecordBulkActionChunk';
  readonly chunk: number;
  readonly now: string;
}

export interface CancelBulkAction {
  readonly type: 'CancelBulkAction';
  readonly now: string;
}

export type BulkActionCommand = RequestBulkAction | RecordBulkActionChunk | CancelBulkAction;

export type BulkActionStatus = 'RUNNING' | 'CANCELLED' | 'COMPLETED';

export interface BulkActionState {
  /** Null until requested. */
  readonly request: Readonly<BulkActionRequested['data']> | null;
  readonly status: BulkActionStatus;
  /** Chunks recorded: the next chunk to execute is this one. */
  readonly chunksDone: number;
  readonly counts: BulkActionCounts;
  /** When it was cancelled or completed. */
  readonly finishedAt: string | null;
}

export const initialBulkActionState: BulkActionState = {
  request: null,
  status: 'RUNNING',
  chunksDone: 0,
  counts: { executed: 0, alreadyActioned: 0, missing: 0, failed: 0 },
  finishedAt: null,
};

/** How many chunks the request's items make. */
export const chunkCount = (request: { readonly items: readonly unknown[]; readonly chunkSize: number }): number =>
  Math.ceil(request.items.length / request.chunkSize);

/** The items of chunk `chunk` (from 0). */
export const chunkItems = (request: { readonly items: readonly BulkActionItem[]; readonly chunkSize: number }, chunk: number): readonly BulkActionItem[] =>
  request.items.slice(chunk * request.chunkSize, (chunk + 1) * request.chunkSize);

/**
 * One bulk operation (`bulk_action-…`; docs/bulk-actions.md, "The bulk operation"): requested
 * once, then each chunk recorded once and in order (a redelivered chunk is recorded already:
 * nothing), completed with its last chunk unless cancelled. A cancellation stops the chunks not
 * yet started; the one under way when it came is still recorded, since its executions happened.
 */
export const bulkActionDecider: Decider<BulkActionCommand, BulkActionState, BulkActionEvent> = {
  eventTypes: { BulkActionRequested: true, BulkActionChunkExecuted: true, BulkActionCancelled: true, BulkActionCompleted: true },
  initialState: initialBulkActionState,

  decide(command, state) {
    switch (command.type) {
      case 'RequestBulkAction': {
        if (state.request) throw conflict(`bulk action ${command.bulkActionId} exists already`);
        return [
          {
            type: 'BulkActionRequested',
            data: {
              bulkActionId: command.bulkActionId,
              actionId: command.actionId,
              policyIds: [...command.policyIds],
              reason: command.reason,
              items: command.items.map((i) => ({ id: i.id, typeId: i.typeId })),
              chunkSize: command.chunkSize,
              requestedBy: command.requestedBy,
              requester: { userId: command.requester.userId, email: command.requester.email },
              requestedAt: command.now,
            },
          },
        ];
      }
      case 'RecordBulkActionChunk': {
        const { request } = state;
        if (!request) throw notFound('No such bulk action');
        if (command.chunk !== state.chunksDone || state.status === 'COMPLETED') return [];
        const { executed, alreadyActioned, missing, failed } = command;
        const recorded: BulkActionEvent = {
          type: 'BulkActionChunkExecuted',
          data: { bulkActionId: request.bulkActionId, chunk: command.chunk, executed, alreadyActioned, missing, failed, executedAt: command.now },
        };
        const last = command.chunk + 1 >= chunkCount(request);
        if (!last || state.status === 'CANCELLED') return [recorded];
        return [recorded, { type: 'BulkActionCompleted', data: { bulkActionId: request.bulkActionId, completedAt: command.now } }];
      }
      case 'CancelBulkAction': {
        if (!state.request) throw notFound('No such bulk action');
        if (state.status === 'COMPLETED') throw conflict('The bulk action is completed: there is nothing left to cancel');
        if (state.status === 'CANCELLED') return [];
        return [{ type: 'BulkActionCancelled', data: { bulkActionId: state.request.bulkActionId, cancelledAt: command.now } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'BulkActionRequested':
        return { ...state, request: event.data };
      case 'BulkActionChunkExecuted': {
        const { counts } = state;
        const { data } = event;
        return {
          ...state,
          chunksDone: data.chunk + 1,
          counts: {
            executed: counts.executed + data.executed,
            alreadyActioned: counts.alreadyActioned + data.alreadyActioned,
            missing: counts.missing + data.missing,
            failed: counts.failed + data.failed,
          },
        };
      }
      case 'BulkActionCancelled':
        return { ...state, status: 'CANCELLED', finishedAt: event.data.cancelledAt };
      case 'BulkActionCompleted':
        return { ...state, status: 'COMPLETED', finishedAt: event.data.completedAt };
    }
  },
};
