import { describe, expect, it } from 'vitest';
import { DomainError, deciderSpecification } from '#warden/kernel';
import { bulkActionDecider, type RequestBulkAction } from './bulk-action.decider.js';
import type { BulkActionEvent } from './bulk-action.events.js';

const spec = deciderSpecification(bulkActionDecider);
const NOW = '2026-03-01T12:00:00.000Z';
const LATER = '2026-03-01T12:00:05.000Z';

const request: RequestBulkAction = {
  type: 'RequestBulkAction',
  bulkActionId: 'blk_1',
  actionId: 'remove',
  policyIds: ['spam'],
  reason: 'spam campaign',
  items: [
    { id: 'p1', typeId: 'post' },
    { id: 'p2', typeId: 'post' },
    { id: 'u1', typeId: 'user' },
  ],
  chunkSize: 2,
  requestedBy: 'user:usr_1',
  requester: { userId: 'usr_1', email: 'lead@acme.example' },
  now: NOW,
};

const requested: BulkActionEvent = {
  type: 'BulkActionRequested',
  data: {
    bulkActionId: 'blk_1',
    actionId: 'remove',
    policyIds: ['spam'],
    reason: 'spam campaign',
    items: [...request.items],
    chunkSize: 2,
    requestedBy: 'user:usr_1',
    requester: { userId: 'usr_1', email: 'lead@acme.example' },
    requestedAt: NOW,
  },
};

const chunk = (n: number, counts = { executed: 2, alreadyActioned: 0, missing: 0, failed: 0 }) => ({
  type: 'RecordBulkActionChunk' as const,
  chunk: n,
  ...counts,
  now: LATER,
});
const chunkExecuted = (n: number, counts = { executed: 2, alreadyActioned: 0, missing: 0, failed: 0 }): BulkActionEvent => ({
  type: 'BulkActionChunkExecuted',
  data: { bulkActionId: 'blk_1', chunk: n, ...counts, executedAt: LATER },
});
const cancelled: BulkActionEvent = { type: 'BulkActionCancelled', data: { bulkActionId: 'blk_1', cancelledAt: LATER } };

describe('bulk action decider', () => {
  it('records the request with its items, action, policies, reason and who asked', () => {
    spec.given([]).when(request).then([requested]);
  });

  it('records the console user who asked with their email, for the callbacks of its executions', () => {
    const [event] = spec.given([]).when(request).events();
    expect(event!.data).toMatchObject({ requestedBy: 'user:usr_1', requester: { userId: 'usr_1', email: 'lead@acme.example' } });
  });

  it('refuses a second request on the same stream', () => {
    spec
      .given([requested])
      .when(request)
      .thenThrows(DomainError, /exists already/);
  });

  it('records each chunk once and in order: a redelivered chunk records nothing', () => {
    spec
      .given([requested])
      .when(chunk(0))
      .then([chunkExecuted(0)]);
    spec
      .given([requested, chunkExecuted(0)])
      .when(chunk(0))
      .thenNothing();
    spec.given([requested]).when(chunk(1)).thenNothing();
  });

  it('completes with the last chunk, counts summed', () => {
    const last = { executed: 0, alreadyActioned: 0, missing: 1, failed: 0 };
    const given = spec.given([requested, chunkExecuted(0)]);
    given.when(chunk(1, last)).then([chunkExecuted(1, last), { type: 'BulkActionCompleted', data: { bulkActionId: 'blk_1', completedAt: LATER } }]);
    const done = spec.given([requested, chunkExecuted(0), chunkExecuted(1, last)]).state;
    if (done.counts.executed !== 2 || done.counts.missing !== 1 || done.chunksDone !== 2) throw new Error(`counts not summed: ${JSON.stringify(done)}`);
  });

  it('a cancellation stops what is not started; the chunk under way is still recorded, never completed', () => {
    spec.given([requested]).when({ type: 'CancelBulkAction', now: LATER }).then([cancelled]);
    spec.given([requested, cancelled]).when({ type: 'CancelBulkAction', now: LATER }).thenNothing();
    spec
      .given([requested, chunkExecuted(0), cancelled])
      .when(chunk(1))
      .then([chunkExecuted(1)]);
  });

  it('refuses to cancel a completed bulk action, or one never requested', () => {
    const completed: BulkActionEvent = { type: 'BulkActionCompleted', data: { bulkActionId: 'blk_1', completedAt: LATER } };
    spec
      .given([requested, chunkExecuted(0), chunkExecuted(1), completed])
      .when({ type: 'CancelBulkAction', now: LATER })
      .thenThrows(DomainError, /completed/);
    spec
      .given([])
      .when({ type: 'CancelBulkAction', now: LATER })
      .thenThrows(DomainError, /No such bulk action/);
    spec
      .given([])
      .when(chunk(0))
      .thenThrows(DomainError, /No such bulk action/);
  });
});
