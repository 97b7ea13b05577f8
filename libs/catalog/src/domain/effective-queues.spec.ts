import { describe, expect, it } from 'vitest';
import type { QueueDefinition } from './catalog.model.js';
import { effectiveQueues } from './effective-queues.js';

const queue = (id: string, isDefault: boolean) =>
  ({ id, name: id, isDefault, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null }) as QueueDefinition;

describe('effectiveQueues', () => {
  it('adds the built-in child-safety queue, and a default one when none is marked', () => {
    expect(effectiveQueues([queue('spam', false)]).map((q) => [q.id, q.isDefault])).toEqual([
      ['spam', false],
      ['default', true],
      ['child-safety', false],
    ]);
    expect(effectiveQueues([queue('default', false)]).map((q) => [q.id, q.isDefault])).toEqual([
      ['default', true],
      ['child-safety', false],
    ]);
  });

  it('bounds a queue stored before apply bounded its lock timeout and expiry', () => {
    const stored = { ...queue('spam', true), lockTimeoutSeconds: 9e15, autoCloseAfterDays: 1e9 };
    expect(effectiveQueues([stored])[0]).toMatchObject({ lockTimeoutSeconds: 86_400, autoCloseAfterDays: 36_500 });
  });

  it('answers queues it already completed unchanged, so that completing twice lists no queue twice', () => {
    for (const declared of [[], [queue('spam', true)], [queue('spam', false)], [queue('default', false), queue('spam', false)]]) {
      const once = effectiveQueues(declared);
      expect(effectiveQueues(once)).toEqual(once);
    }
  });
});
