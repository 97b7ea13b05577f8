import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from './events.js';
import { type Upcaster, UpcasterRegistry } from './upcasting.js';

const recorded = (type: string, schemaVersion: number, data: RecordedEvent['data']): RecordedEvent => ({
  id: 'e1',
  type,
  data,
  streamName: 'thing-1',
  revision: 0,
  position: 1,
  metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 't', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion },
});

// v1 had `name`; v2 split it; v3 added `tags`.
const splitName: Upcaster = {
  eventType: 'ThingNamed',
  fromVersion: 1,
  upcast: ({ name, ...rest }) => {
    const [first, last] = String(name).split(' ');
    return { ...rest, first: first ?? '', last: last ?? '' };
  },
};
const addTags: Upcaster = { eventType: 'ThingNamed', fromVersion: 2, upcast: (data) => ({ ...data, tags: [] }) };

describe('UpcasterRegistry', () => {
  it('brings an event of any earlier version to the current one, step by step', () => {
    const registry = new UpcasterRegistry();
    registry.register(addTags, splitName);
    expect(registry.currentVersion('ThingNamed')).toBe(3);
    const v1 = registry.upcast(recorded('ThingNamed', 1, { name: 'Ada Lovelace', n: 1 }));
    expect(v1.data).toEqual({ n: 1, first: 'Ada', last: 'Lovelace', tags: [] });
    expect(v1.metadata.schemaVersion).toBe(3);
    expect(registry.upcast(recorded('ThingNamed', 2, { first: 'A', last: 'B' })).data).toEqual({ first: 'A', last: 'B', tags: [] });
  });

  it('hands current, newer and unregistered events on unchanged', () => {
    const registry = new UpcasterRegistry();
    registry.register(splitName);
    const current = recorded('ThingNamed', 2, { first: 'A', last: 'B' });
    expect(registry.upcast(current)).toBe(current);
    const newer = recorded('ThingNamed', 5, { whatever: true });
    expect(registry.upcast(newer)).toBe(newer);
    const other = recorded('OtherThing', 1, { x: 1 });
    expect(registry.upcast(other)).toBe(other);
    expect(registry.currentVersion('OtherThing')).toBe(1);
  });

  it('refuses a gap in a chain and a second upcaster for the same version', () => {
    expect(() => new UpcasterRegistry().register(addTags)).toThrow(/skip v1/);
    const registry = new UpcasterRegistry();
    registry.register(splitName);
    expect(() => registry.register({ ...splitName })).toThrow(/registered twice/);
    expect(() => registry.register({ eventType: 'X', fromVersion: 0, upcast: (d) => d })).toThrow(/>= 1/);
  });
});
