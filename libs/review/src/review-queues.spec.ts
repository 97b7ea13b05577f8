import type { QueryBus } from '@nestjs/cqrs';
import { describe, expect, it } from 'vitest';
import type { QueueDefinition } from '#warden/catalog';
import { ReviewQueues, visibleQueues } from './review-queues.js';

const declared = [{ id: 'spam', name: 'Spam', order: 1, isDefault: true, isAppealsDefault: false, lockTimeoutSeconds: 600 }] as unknown as QueueDefinition[];
/** The catalog's answer to GetLiveEntitiesQuery, the one query ReviewQueues asks. */
const catalog = { execute: async () => declared } as unknown as QueryBus;

describe('ReviewQueues', () => {
  it('lists each queue once, the built-in child-safety queue only to a viewer with VIEW_CHILD_SAFETY_DATA', async () => {
    const queues = new ReviewQueues(catalog);
    expect((await queues.visible('org', ['VIEW_MRT', 'VIEW_CHILD_SAFETY_DATA'])).map((q) => q.id)).toEqual(['spam', 'child-safety']);
    expect((await queues.visible('org', ['VIEW_MRT'])).map((q) => q.id)).toEqual(['spam']);
    expect((await queues.all('org')).map((q) => q.id)).toEqual(['spam', 'child-safety']);
    // The merge's slip: the queues already completed, handed in again.
    expect(visibleQueues(await queues.all('org'), ['VIEW_CHILD_SAFETY_DATA']).map((q) => q.id)).toEqual(['spam', 'child-safety']);
  });
});
