import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { type GdprDeletionCommand, gdprDeletionDecider } from './gdpr-deletion.decider.js';
import type { ErasedCounts, GdprDeletionEvent } from './gdpr-deletion.events.js';

const user = { id: 'u-1', typeId: 'user' };
const request: GdprDeletionCommand = {
  type: 'RequestGdprDeletion',
  requestId: 'req-1',
  user,
  subject: 'user:u-1',
  consoleUserId: null,
  now: '2026-03-01T10:00:00.000Z',
};
const erased: ErasedCounts = { dataKeys: 1, items: 3, reports: 2, appeals: 1, reviewJobsClosed: 1 };
const complete: GdprDeletionCommand = { type: 'CompleteGdprDeletion', erased, now: '2026-03-01T10:00:02.000Z' };

const requested: GdprDeletionEvent = {
  type: 'GdprDeletionRequested',
  data: { requestId: 'req-1', user, subject: 'user:u-1', requestedAt: '2026-03-01T10:00:00.000Z' },
};
const completed: GdprDeletionEvent = {
  type: 'GdprDeletionCompleted',
  data: { requestId: 'req-1', user, subject: 'user:u-1', erased, completedAt: '2026-03-01T10:00:02.000Z' },
};

const spec = deciderSpecification(gdprDeletionDecider);

describe('GDPR deletion decider', () => {
  it('records a first request with the user ids and subject only', () => {
    spec.given([]).when(request).then([requested]);
    expect(spec.given([requested]).state).toMatchObject({
      status: 'PENDING',
      requestId: 'req-1',
      requestedAt: '2026-03-01T10:00:00.000Z',
      completedAt: null,
      erased: null,
    });
  });

  it("carries the same person's console account from the request to the completion", () => {
    const withAccount = spec
      .given([])
      .when({ ...request, consoleUserId: 'cu-7' })
      .then([{ ...requested, data: { ...requested.data, consoleUserId: 'cu-7' } }]);
    spec
      .given(withAccount)
      .when(complete)
      .then([{ ...completed, data: { ...completed.data, consoleUserId: 'cu-7' } }]);
  });

  it('records nothing for the same user again while pending, nor once completed', () => {
    spec
      .given([requested])
      .when({ ...request, now: '2026-03-01T10:00:01.000Z' })
      .thenNothing();
    spec
      .given([requested, completed])
      .when({ ...request, now: '2026-03-02T10:00:00.000Z' })
      .thenNothing();
  });

  it('completes a pending request with what was erased', () => {
    spec.given([requested]).when(complete).then([completed]);
    expect(spec.given([requested, completed]).state).toMatchObject({ status: 'COMPLETED', completedAt: '2026-03-01T10:00:02.000Z', erased });
  });

  it('completes once: a re-run of the erasure records nothing more', () => {
    spec
      .given([requested, completed])
      .when({ ...complete, erased: { ...erased, dataKeys: 0 } })
      .thenNothing();
  });

  it('completes nothing that was never requested', () => {
    spec.given([]).when(complete).thenNothing();
  });
});
