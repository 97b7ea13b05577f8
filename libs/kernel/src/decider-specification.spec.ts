import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import type { Decider } from './decider.js';
import { deciderSpecification } from './decider-specification.js';
import { conflict, DomainError } from './errors.js';
import type { DomainEvent } from './events.js';

type Opened = DomainEvent<'DoorOpened', { by: string }>;
type Closed = DomainEvent<'DoorClosed', { by: string }>;
type DoorCommand = { type: 'Open'; by: string } | { type: 'Close'; by: string } | { type: 'Break' };

class DoorJammed extends Error {
  constructor(readonly by: string) {
    super(`The door is jammed, ${by}`);
    this.name = 'DoorJammed';
  }
}

/** Opens once (a re-run decides nothing); closing a closed door is a conflict; Break throws a non-Error. */
const door: Decider<DoorCommand, { open: boolean; openedBy: string | null }, Opened | Closed> = {
  eventTypes: { DoorOpened: true, DoorClosed: true },
  initialState: { open: false, openedBy: null },
  decide(command, state) {
    switch (command.type) {
      case 'Open':
        if (command.by === 'mallory') throw new DoorJammed(command.by);
        return state.open ? [] : [{ type: 'DoorOpened', data: { by: command.by } }];
      case 'Close':
        if (!state.open) throw conflict('The door is already closed');
        return [{ type: 'DoorClosed', data: { by: command.by } }];
      case 'Break':
        throw 'not an error';
    }
  },
  evolve: (_, e) => (e.type === 'DoorOpened' ? { open: true, openedBy: e.data.by } : { open: false, openedBy: null }),
};

const opened = (by = 'ann'): Opened => ({ type: 'DoorOpened', data: { by } });
const closed = (by = 'ann'): Closed => ({ type: 'DoorClosed', data: { by } });
const spec = deciderSpecification(door);

/** The message of the AssertionError `run` throws (and fails the spec if it throws none, or another error). */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AssertionError);
    return (error as AssertionError).message;
  }
  throw new Error('expected the specification to fail');
}

describe('deciderSpecification', () => {
  it('passes when the command decides the events expected, and returns them', () => {
    expect(spec.given([]).when({ type: 'Open', by: 'ann' }).then([opened()])).toEqual([opened()]);
    expect(
      spec
        .given([opened()])
        .when({ type: 'Close', by: 'bob' })
        .then([closed('bob')]),
    ).toEqual([closed('bob')]);
  });

  it('folds the given events into the state the command is decided on, and shows it', () => {
    expect(spec.given([]).state).toEqual({ open: false, openedBy: null });
    expect(spec.given([opened('ann')]).state).toEqual({ open: true, openedBy: 'ann' });
    expect(spec.given([opened(), closed()]).state).toEqual({ open: false, openedBy: null });
  });

  it('fails on other events, more or fewer, or another order, naming the command and showing the difference', () => {
    const message = failure(() =>
      spec
        .given([])
        .when({ type: 'Open', by: 'ann' })
        .then([opened('bob')]),
    );
    expect(message).toMatch(/^Given 0 events, when Open: expected 1 event, but it decided 1 event\./);
    expect(message).toContain("by: 'ann'");
    expect(message).toContain("by: 'bob'");
    expect(failure(() => spec.given([]).when({ type: 'Open', by: 'ann' }).then([]))).toMatch(/expected 0 events, but it decided 1 event/);
    expect(failure(() => spec.given([]).when({ type: 'Open', by: 'ann' }).then([opened(), opened()]))).toMatch(/expected 2 events, but it decided 1 event/);
    const both = [opened(), closed()];
    const twice: Decider<'twice', null, Opened | Closed> = { eventTypes: door.eventTypes, initialState: null, decide: () => both, evolve: () => null };
    expect(failure(() => deciderSpecification(twice).given([]).when('twice').then([closed(), opened()]))).toMatch(/^Given 0 events, when 'twice'/);
  });

  it('compares strictly: an extra property, even undefined, is a difference', () => {
    const loose = { type: 'DoorOpened', data: { by: 'ann', extra: undefined } } as Opened;
    expect(() => spec.given([]).when({ type: 'Open', by: 'ann' }).then([loose])).toThrow(AssertionError);
  });

  it('fails when events were expected and the command is refused, keeping the refusal as the cause', () => {
    let error: unknown;
    try {
      spec.given([]).when({ type: 'Close', by: 'ann' }).then([closed()]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as Error).message).toBe('Given 0 events, when Close: expected 1 event, but it threw DomainError: Conflict: The door is already closed');
    expect((error as Error).cause).toBeInstanceOf(DomainError);
  });

  it('thenNothing passes when no event is decided, and fails on any', () => {
    spec.given([opened()]).when({ type: 'Open', by: 'bob' }).thenNothing();
    expect(failure(() => spec.given([]).when({ type: 'Open', by: 'ann' }).thenNothing())).toMatch(
      /^Given 0 events, when Open: expected no events, but it decided 1 event\./,
    );
    expect(failure(() => spec.given([opened(), closed()]).when({ type: 'Close', by: 'ann' }).thenNothing())).toMatch(
      /^Given 2 events, when Close: expected no events, but it threw DomainError/,
    );
  });

  it('thenThrows passes on a refusal of the class, message and predicate given, and returns the error', () => {
    const refusal = spec.given([]).when({ type: 'Close', by: 'ann' }).thenThrows(DomainError);
    expect(refusal.kind).toBe('conflict');
    spec
      .given([])
      .when({ type: 'Close', by: 'ann' })
      .thenThrows(/already closed/);
    spec
      .given([])
      .when({ type: 'Close', by: 'ann' })
      .thenThrows(DomainError, /already closed/);
    spec
      .given([])
      .when({ type: 'Close', by: 'ann' })
      .thenThrows(DomainError, (e) => e.status === 409);
    spec
      .given([])
      .when({ type: 'Close', by: 'ann' })
      .thenThrows((e) => e instanceof DomainError);
    spec.given([]).when({ type: 'Close', by: 'ann' }).thenThrows(Error);
    expect(spec.given([]).when({ type: 'Open', by: 'mallory' }).thenThrows(DoorJammed).by).toBe('mallory');
    expect(spec.given([]).when({ type: 'Break' }).thenThrows()).toBe('not an error');
  });

  it('thenThrows fails when nothing is thrown, or not the error expected', () => {
    expect(failure(() => spec.given([]).when({ type: 'Open', by: 'ann' }).thenThrows())).toMatch(
      /^Given 0 events, when Open: expected a refusal, but it decided 1 event: \[ \{ type: 'DoorOpened', data: \{ by: 'ann' \} \} \]$/,
    );
    expect(failure(() => spec.given([opened()]).when({ type: 'Open', by: 'ann' }).thenThrows(DomainError))).toMatch(
      /^Given 1 event, when Open: expected a refusal \(DomainError\), but it decided 0 events: \[\]$/,
    );
    expect(failure(() => spec.given([]).when({ type: 'Open', by: 'mallory' }).thenThrows(DomainError))).toBe(
      'Given 0 events, when Open: expected a refusal (DomainError), but it threw DoorJammed: The door is jammed, mallory',
    );
    expect(
      failure(() =>
        spec
          .given([])
          .when({ type: 'Close', by: 'ann' })
          .thenThrows(/already open/),
      ),
    ).toBe('Given 0 events, when Close: expected a refusal that matches /already open/, but it threw DomainError: Conflict: The door is already closed');
    expect(
      failure(() =>
        spec
          .given([])
          .when({ type: 'Close', by: 'ann' })
          .thenThrows(DomainError, (e) => e.kind === 'not-found'),
      ),
    ).toMatch(/expected a refusal \(DomainError\) that passes \(e\) => e.kind === ["']not-found["'], but it threw DomainError: Conflict/);
    expect(failure(() => spec.given([]).when({ type: 'Close', by: 'ann' }).thenThrows(DoorJammed))).toMatch(/\(DoorJammed\), but it threw DomainError/);
    expect(failure(() => spec.given([]).when({ type: 'Break' }).thenThrows(Error))).toMatch(/\(Error\), but it threw 'not an error'$/);
  });

  it('a predicate passes only by returning true', () => {
    const sloppy = ((e: DomainError) => void e.kind) as unknown as (e: DomainError) => boolean;
    expect(() => spec.given([]).when({ type: 'Close', by: 'ann' }).thenThrows(DomainError, sloppy)).toThrow(AssertionError);
  });

  it('is no promise: awaited by mistake, it fails instead of passing unchecked', async () => {
    const awaited = Promise.resolve(spec.given([]).when({ type: 'Open', by: 'ann' }) as unknown);
    await expect(awaited).rejects.toThrow(/then\(\) takes the expected events \(an array\); was the specification awaited or returned\?/);
  });

  it('decides nothing until asked, and events() hands back what was decided unchecked, a refusal as thrown', () => {
    let decided = 0;
    const counting: typeof door = { ...door, decide: (c, s) => (decided++, door.decide(c, s)) };
    const when = deciderSpecification(counting).given([]).when({ type: 'Open', by: 'ann' });
    expect(decided).toBe(0);
    expect(when.events()).toEqual([opened()]);
    expect(() => spec.given([]).when({ type: 'Close', by: 'ann' }).events()).toThrow(DomainError);
  });
});
