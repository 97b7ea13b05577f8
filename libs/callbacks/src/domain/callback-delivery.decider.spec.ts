import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError } from '#warden/kernel';
import { type AttemptOutcome, type CallbackDeliveryCommand, callbackDeliveryDecider } from './callback-delivery.decider.js';
import type { CallbackDeliveryEvent, CallbackDeliveryRequested } from './callback-delivery.events.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const SCHEDULE = [50, 100, 200, 400, 800];
const sealed = (ct: string) => ({ kid: 'k', iv: 'i', ct, tag: 't' });
const destination = { url: 'https://platform.example/hooks?…', sealedUrl: sealed('u'), headers: { authorization: sealed('c') } };

const request = (overrides: Partial<CallbackDeliveryRequested['data']> = {}): CallbackDeliveryRequested['data'] => ({
  deliveryId: 'd-1',
  kind: 'action',
  trigger: 'rule',
  actionId: 'remove',
  appealId: null,
  item: { id: 'p1', typeId: 'post' },
  destination,
  body: { item: { id: 'p1' } },
  subject: null,
  requestedAt: T0,
  nextAttemptAt: T0,
  ...overrides,
});

const requested: CallbackDeliveryEvent = { type: 'CallbackDeliveryRequested', data: request() };
const failure = (status: number | null = 500, retryAfterMs: number | null = null): AttemptOutcome => ({
  ok: false,
  status,
  error: status === null ? 'Outbound request timed out' : `The receiver answered ${status}`,
  durationMs: 3,
  retryAfterMs,
});
const attempt = (n: number, outcome: AttemptOutcome, cycle = 1, random = 0.5): CallbackDeliveryCommand => ({
  type: 'RecordAttempt',
  cycle,
  attempt: n,
  at: at(n * 1000),
  outcome,
  schedule: SCHEDULE,
  random,
});

const spec = deciderSpecification(callbackDeliveryDecider);

/** The events of n failed attempts in a row, each decided on the state the previous ones left. */
function failures(n: number, from: CallbackDeliveryEvent[] = [requested], cycle = 1): CallbackDeliveryEvent[] {
  const events = [...from];
  for (let i = 1; i <= n; i++)
    events.push(
      ...spec
        .given(events)
        .when(attempt(i, failure(), cycle))
        .events(),
    );
  return events;
}

describe('callback delivery decider', () => {
  it('records a request once: asking again for the same delivery decides nothing', () => {
    spec.given([]).when({ type: 'RequestDelivery', request: request() }).then([requested]);
    spec.given([requested]).when({ type: 'RequestDelivery', request: request() }).thenNothing();
  });

  it('dead-letters at once a request with nowhere to go', () => {
    const events = spec
      .given([])
      .when({ type: 'RequestDelivery', request: request({ destination: null }) })
      .events();
    expect(events.map((e) => e.type)).toEqual(['CallbackDeliveryRequested', 'CallbackDeadLettered']);
    expect(events[1]!.data).toMatchObject({ attempts: 0, reason: 'No callback URL is configured for it' });
  });

  it('records a 2xx as delivered', () => {
    spec
      .given([requested])
      .when(attempt(1, { ok: true, status: 204, durationMs: 5 }))
      .then([{ type: 'CallbackDelivered', data: { deliveryId: 'd-1', cycle: 1, attempt: 1, status: 204, durationMs: 5, deliveredAt: at(1000) } }]);
  });

  it('schedules the retry from the schedule with jitter after a failure', () => {
    const [failed] = spec
      .given([requested])
      .when(attempt(1, failure(500), 1, 0))
      .events();
    expect(failed).toEqual({
      type: 'CallbackAttemptFailed',
      data: {
        deliveryId: 'd-1',
        cycle: 1,
        attempt: 1,
        status: 500,
        error: 'The receiver answered 500',
        durationMs: 3,
        retryAfterMs: null,
        attemptedAt: at(1000),
        nextAttemptAt: at(1000 + 40),
      },
    });
    const [second] = spec
      .given(failures(1))
      .when(attempt(2, failure(null), 1, 0.5))
      .events();
    expect(second!.data).toMatchObject({ status: null, nextAttemptAt: at(2000 + 100) });
  });

  it("honours the receiver's Retry-After when it asks for longer", () => {
    const [failed] = spec
      .given([requested])
      .when(attempt(1, failure(429, 5000)))
      .events();
    expect(failed!.data).toMatchObject({ retryAfterMs: 5000, nextAttemptAt: at(1000 + 5000) });
  });

  it('retries five times, and dead-letters after the sixth failure in a row', () => {
    const five = failures(5);
    expect(five.filter((e) => e.type === 'CallbackAttemptFailed')).toHaveLength(5);
    expect(spec.given(five).state).toMatchObject({ status: 'failed', attempts: 5 });
    const sixth = spec
      .given(five)
      .when(attempt(6, failure(503)))
      .events();
    expect(sixth.map((e) => e.type)).toEqual(['CallbackAttemptFailed', 'CallbackDeadLettered']);
    expect(sixth[0]!.data).toMatchObject({ attempt: 6, nextAttemptAt: null });
    expect(sixth[1]!.data).toMatchObject({ cycle: 1, attempts: 6, reason: 'All 6 attempts failed; the last: The receiver answered 503' });
    expect(spec.given([...five, ...sixth]).state).toMatchObject({ status: 'dead', nextAttemptAt: null });
  });

  it('refuses an attempt decided on a stale state', () => {
    spec.given([]).when(attempt(1, failure())).thenThrows(DomainError);
    spec.given([requested]).when(attempt(2, failure())).thenThrows(DomainError);
    spec.given(failures(1)).when(attempt(1, failure())).thenThrows(DomainError);
    spec
      .given([requested])
      .when(attempt(1, failure(), 2))
      .thenThrows(DomainError);
    const delivered = [
      requested,
      ...spec
        .given([requested])
        .when(attempt(1, { ok: true, status: 200, durationMs: 1 }))
        .events(),
    ];
    spec.given(delivered).when(attempt(2, failure())).thenThrows(DomainError);
  });

  it('starts a fresh cycle on redelivery of a dead delivery: same id, attempts counted from one again', () => {
    const dead = failures(6);
    const redelivered = spec
      .given(dead)
      .when({ type: 'Redeliver', at: at(60_000), destination, requestedBy: 'cli' })
      .then([
        {
          type: 'CallbackRedeliveryRequested',
          data: { deliveryId: 'd-1', cycle: 2, destination: null, requestedBy: 'cli', requestedAt: at(60_000), nextAttemptAt: at(60_000) },
        },
      ]);
    const state = spec.given([...dead, ...redelivered]).state;
    expect(state).toMatchObject({ status: 'pending', cycle: 2, attempts: 0, nextAttemptAt: at(60_000) });
    expect(
      spec
        .given([...dead, ...redelivered])
        .when(attempt(1, { ok: true, status: 200, durationMs: 1 }, 2))
        .events()[0]!.type,
    ).toBe('CallbackDelivered');
  });

  it('redelivers to the destination configured now, recording it only when it changed', () => {
    const moved = { url: 'https://platform.example/v2/hooks', sealedUrl: sealed('v2'), headers: {} };
    const [event] = spec
      .given(failures(6))
      .when({ type: 'Redeliver', at: at(60_000), destination: moved, requestedBy: 'cli' })
      .events();
    expect(event!.data).toMatchObject({ destination: moved });
    const events = [...failures(6), event!];
    expect(spec.given(events).state.destination).toEqual(moved);
  });

  it('refuses to redeliver a delivery that is about to be attempted, or unknown, or with nowhere to go', () => {
    spec
      .given([requested])
      .when({ type: 'Redeliver', at: T0, destination, requestedBy: 'cli' })
      .thenThrows(/about to be attempted/);
    spec
      .given([])
      .when({ type: 'Redeliver', at: T0, destination, requestedBy: 'cli' })
      .thenThrows(/No such callback delivery/);
    const nowhere = spec
      .given([])
      .when({ type: 'RequestDelivery', request: request({ destination: null }) })
      .events();
    spec
      .given(nowhere)
      .when({ type: 'Redeliver', at: T0, destination: null, requestedBy: 'cli' })
      .thenThrows(/no callback URL/);
  });

  it('redelivers a failed delivery whose retry is hours away, and refuses one whose retry is due or about to be (it may be under way)', () => {
    const waiting = failures(1, [requested]).slice(0, 1);
    waiting.push(
      ...spec
        .given(waiting)
        .when(attempt(1, failure(503, 3_600_000)))
        .events(),
    );
    expect(spec.given(waiting).state).toMatchObject({ status: 'failed', nextAttemptAt: at(1000 + 3_600_000) });
    expect(
      spec
        .given(waiting)
        .when({ type: 'Redeliver', at: at(2000), destination, requestedBy: 'cli' })
        .events()[0],
    ).toMatchObject({ type: 'CallbackRedeliveryRequested', data: { cycle: 2 } });
    spec
      .given(waiting)
      .when({ type: 'Redeliver', at: at(1000 + 3_600_000 - 1000), destination, requestedBy: 'cli' })
      .thenThrows(/retry due at .* which may be under way/);
    spec
      .given(failures(1))
      .when({ type: 'Redeliver', at: at(1050), destination, requestedBy: 'cli' })
      .thenThrows(/retry due at/);
  });

  it('gives up (personal data erased) only on the current cycle of a live delivery', () => {
    const [dead] = spec
      .given([requested])
      .when({ type: 'GiveUp', cycle: 1, at: at(5), reason: 'erased' })
      .events();
    expect(dead).toMatchObject({ type: 'CallbackDeadLettered', data: { cycle: 1, attempts: 0, reason: 'erased' } });
    spec
      .given([requested])
      .when({ type: 'GiveUp', cycle: 2, at: at(5), reason: 'erased' })
      .thenNothing();
    spec
      .given(failures(6))
      .when({ type: 'GiveUp', cycle: 1, at: at(5), reason: 'erased' })
      .thenNothing();
  });
});
