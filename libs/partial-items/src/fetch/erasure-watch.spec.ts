import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { EventStore, SubscribeOptions } from '#warden/eventstore';
import { SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT } from '#warden/kernel';
import { ErasureWatch } from './erasure-watch.js';

const erasure = (type: string, subject: string, orgId = 'acme') =>
  anEvent(type, { requestId: `r-${subject}`, user: { id: subject.split(':')[1]!, typeId: 'user' }, subject }, orgId);

describe('following GDPR erasures in the log (ErasureWatch)', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  let watch: ErasureWatch | undefined;
  afterEach(async () => {
    await watch?.stop();
    await stores?.close();
  });

  it('reports each erasure recorded after it started, requested and completed, with its organization; not the earlier ones', async () => {
    stores = sqliteStores();
    const seen: string[] = [];
    // Before the start: its memory was empty then, nothing to forget.
    await stores.events.append('gdpr_deletion-acme:old', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:old')], 'no_stream');
    watch = new ErasureWatch(
      stores.events,
      (orgId, subject) => seen.push(`${orgId}/${subject}`),
      () => undefined,
    );
    await watch.start();
    expect(watch.live).toBe(true);
    await stores.events.append('item-acme:post:p1', [anEvent('ItemSubmitted', {})], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:ann', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:ann')], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:ann', [erasure(SUBJECT_ERASED_EVENT, 'user:ann')], 0);
    await stores.events.append('gdpr_deletion-other:bob', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:bob', 'other')], 'no_stream');
    await waitFor(() => seen.length >= 3 || undefined, 'the three erasures');
    expect(seen).toEqual(['acme/user:ann', 'acme/user:ann', 'other/user:bob']);
  });

  it('says it lost track when its subscription fails, and resumes where it stopped: an erasure recorded meanwhile is still reported', async () => {
    stores = sqliteStores();
    const events = stores.events;
    // The log's subscription fails once (a KurrentDB connection dropped); the store itself is real.
    let failures = 0;
    const failingOnce: EventStore = Object.create(events, {
      subscribeToAll: {
        value: (options: SubscribeOptions) => {
          if (failures > 0) return events.subscribeToAll(options);
          failures++;
          queueMicrotask(() => options.onError?.(new Error('connection dropped')));
          return { stop: () => Promise.resolve() };
        },
      },
    });
    const seen: string[] = [];
    let lost = 0;
    watch = new ErasureWatch(
      failingOnce,
      (orgId, subject) => seen.push(`${orgId}/${subject}`),
      () => lost++,
    );
    await watch.start();
    await waitFor(() => lost > 0 || undefined, 'the loss');
    expect(watch.live).toBe(false);
    await events.append('gdpr_deletion-acme:ann', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:ann')], 'no_stream');
    await waitFor(() => seen.length > 0 || undefined, 'the erasure recorded while it was not following');
    expect(seen).toEqual(['acme/user:ann']);
    expect(watch.live).toBe(true);
    expect(lost).toBe(1);
  });

  it('is not live once stopped', async () => {
    stores = sqliteStores();
    watch = new ErasureWatch(
      stores.events,
      () => undefined,
      () => undefined,
    );
    await watch.start();
    await watch.stop();
    expect(watch.live).toBe(false);
  });
});
