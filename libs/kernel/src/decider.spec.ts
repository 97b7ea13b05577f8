import { describe, expect, it } from 'vitest';
import { type Decider, deciderEvents, UnknownStreamEventError } from './decider.js';
import type { DomainEvent } from './events.js';

type Opened = DomainEvent<'Opened', { by: string }>;
type Closed = DomainEvent<'Closed', { reason: string }>;
const door: Decider<never, { open: boolean }, Opened | Closed> = {
  eventTypes: { Opened: true, Closed: true },
  initialState: { open: false },
  decide: () => [],
  evolve: (_, e) => ({ open: e.type === 'Opened' }),
};

describe('deciderEvents', () => {
  it("hands a stream's events to evolve typed when the decider knows every type", () => {
    const events = deciderEvents(door, 'door-1', [
      { type: 'Opened', data: { by: 'a' } },
      { type: 'Closed', data: { reason: 'wind' } },
    ]);
    expect(events.reduce(door.evolve, door.initialState)).toEqual({ open: false });
  });

  it('refuses a stream holding a type its decider does not know, naming both', () => {
    expect(() => deciderEvents(door, 'door-1', [{ type: 'Painted', data: {} }])).toThrow(UnknownStreamEventError);
    expect(() => deciderEvents(door, 'door-1', [{ type: 'toString', data: {} }])).toThrow(/door-1 holds a toString event/);
  });
});
