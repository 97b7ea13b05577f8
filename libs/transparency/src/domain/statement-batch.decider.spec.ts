import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError } from '#warden/kernel';
import { type BatchAttemptOutcome, MAX_BATCH, type StatementBatchCommand, statementBatchDecider } from './statement-batch.decider.js';
import type { StatementBatchEvent } from './statement-batch.events.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const SCHEDULE = [1000, 4000];
const body = (puid: string) => ({ puid, category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD' });
const statements = [
  { puid: 'warden-a', deliveryId: 'd-a' },
  { puid: 'warden-b', deliveryId: 'd-b' },
];
const request: StatementBatchCommand = { type: 'RequestBatch', batchId: 'b1', statements, bodies: statements.map((s) => body(s.puid)), at: T0 };
const requested: StatementBatchEvent = {
  type: 'StatementBatchRequested',
  data: { batchId: 'b1', statements, bodies: [body('warden-a'), body('warden-b')], requestedAt: T0, nextAttemptAt: T0 },
};
const attempt = (n: number, outcome: BatchAttemptOutcome, random = 0.5): StatementBatchCommand => ({
  type: 'RecordAttempt',
  attempt: n,
  at: at(n * 10_000),
  outcome,
  schedule: SCHEDULE,
  random,
});
const unavailable: BatchAttemptOutcome = { kind: 'failed', status: 503, error: 'The Database answered 503', retryAfterMs: null };

const spec = deciderSpecification(statementBatchDecider);

describe('statement batch decider', () => {
  it('records a batch once, with its bodies, due at once; asking again decides nothing', () => {
    spec.given([]).when(request).then([requested]);
    spec.given([requested]).when(request).thenNothing();
  });

  it(`refuses an empty batch and one over the endpoint's ${MAX_BATCH} statements`, () => {
    expect(() =>
      spec
        .given([])
        .when({ ...request, statements: [], bodies: [] })
        .events(),
    ).toThrow(DomainError);
    const many = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ puid: `p${i}`, deliveryId: `d${i}` }));
    expect(() =>
      spec
        .given([])
        .when({ ...request, statements: many, bodies: many.map((s) => body(s.puid)) })
        .events(),
    ).toThrow(DomainError);
  });

  it('records a 201 as submitted', () => {
    spec
      .given([requested])
      .when(attempt(1, { kind: 'created', status: 201 }))
      .then([{ type: 'StatementBatchSubmitted', data: { batchId: 'b1', attempt: 1, status: 201, alreadyInDatabase: [], submittedAt: at(10_000) } }]);
  });

  it('retries a 503 after the schedule, with jitter, honouring a longer Retry-After; then submits', () => {
    const [failed] = spec
      .given([requested])
      .when(attempt(1, unavailable, 0))
      .events();
    expect(failed).toEqual({
      type: 'StatementBatchAttemptFailed',
      data: {
        batchId: 'b1',
        attempt: 1,
        status: 503,
        error: 'The Database answered 503',
        retryAfterMs: null,
        alreadyInDatabase: [],
        attemptedAt: at(10_000),
        nextAttemptAt: at(10_800),
      },
    });
    const [slow] = spec
      .given([requested])
      .when(attempt(1, { ...unavailable, retryAfterMs: 60_000 }))
      .events();
    expect(slow!.data).toMatchObject({ nextAttemptAt: at(70_000) });
    const state = spec.given([requested, failed!]).state;
    expect(state).toMatchObject({ status: 'retrying', attempts: 1, failures: 1, nextAttemptAt: at(10_800) });
    expect(
      spec
        .given([requested, failed!])
        .when(attempt(2, { kind: 'created', status: 201 }))
        .events()[0]!.type,
    ).toBe('StatementBatchSubmitted');
  });

  it('abandons the batch when the schedule runs out', () => {
    const events: StatementBatchEvent[] = [requested];
    for (let n = 1; n <= 2; n++) events.push(...spec.given(events).when(attempt(n, unavailable)).events());
    const last = spec.given(events).when(attempt(3, unavailable)).events();
    expect(last.map((e) => e.type)).toEqual(['StatementBatchAttemptFailed', 'StatementBatchAbandoned']);
    expect(last[1]!.data).toMatchObject({ attempts: 3, reason: 'All 3 attempts failed; the last: The Database answered 503' });
    expect(spec.given([...events, ...last]).state.status).toBe('abandoned');
  });

  it('sends again at once without the statements the Database reports it has (an earlier attempt went through unrecorded)', () => {
    const [failed] = spec
      .given([requested])
      .when(attempt(1, { kind: 'existing', status: 422, puids: ['warden-a'] }))
      .events();
    expect(failed!.data).toMatchObject({ alreadyInDatabase: ['warden-a'], nextAttemptAt: at(10_000) });
    const state = spec.given([requested, failed!]).state;
    expect(state.remaining).toEqual([body('warden-b')]);
    expect(state.failures).toBe(0);
    spec
      .given([requested])
      .when(attempt(1, { kind: 'existing', status: 422, puids: ['warden-a', 'warden-b'] }))
      .then([
        {
          type: 'StatementBatchSubmitted',
          data: { batchId: 'b1', attempt: 1, status: 422, alreadyInDatabase: ['warden-a', 'warden-b'], submittedAt: at(10_000) },
        },
      ]);
  });

  it('records a refusal of the content as rejected, without retrying', () => {
    spec
      .given([requested])
      .when(attempt(1, { kind: 'refused', status: 422, error: 'statement_0.category: The selected category is invalid.' }))
      .then([
        {
          type: 'StatementBatchRejected',
          data: { batchId: 'b1', attempt: 1, status: 422, error: 'statement_0.category: The selected category is invalid.', rejectedAt: at(10_000) },
        },
      ]);
  });

  it('refuses a stale attempt: a wrong number, or a batch no longer due', () => {
    expect(() => spec.given([requested]).when(attempt(2, unavailable)).events()).toThrow(DomainError);
    const done = spec
      .given([requested])
      .when(attempt(1, { kind: 'created', status: 201 }))
      .events();
    expect(() =>
      spec
        .given([requested, ...done])
        .when(attempt(2, unavailable))
        .events(),
    ).toThrow(DomainError);
    expect(() => spec.given([]).when(attempt(1, unavailable)).events()).toThrow(DomainError);
  });
});
