import type { BulkActionState, BulkActionStatus } from '../domain/bulk-action.decider.js';
import { chunkCount } from '../domain/bulk-action.decider.js';

/** A bulk operation as the console shows it: what was asked, by whom, and how far it got. */
export interface BulkActionView {
  readonly bulkActionId: string;
  readonly status: BulkActionStatus;
  readonly actionId: string;
  readonly policyIds: readonly string[];
  readonly reason: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly finishedAt: string | null;
  /** Unique items named. */
  readonly items: number;
  /** Items worked through so far (executed, already actioned, missing or failed). */
  readonly processed: number;
  readonly executed: number;
  readonly alreadyActioned: number;
  readonly missing: number;
  readonly failed: number;
  readonly chunks: number;
  readonly chunksDone: number;
}

export function bulkActionView(state: BulkActionState): BulkActionView | null {
  const { request } = state;
  if (!request) return null;
  const { executed, alreadyActioned, missing, failed } = state.counts;
  return {
    bulkActionId: request.bulkActionId,
    status: state.status,
    actionId: request.actionId,
    policyIds: [...request.policyIds],
    reason: request.reason,
    requestedBy: request.requestedBy,
    requestedAt: request.requestedAt,
    finishedAt: state.finishedAt,
    items: request.items.length,
    processed: executed + alreadyActioned + missing + failed,
    executed,
    alreadyActioned,
    missing,
    failed,
    chunks: chunkCount(request),
    chunksDone: state.chunksDone,
  };
}
