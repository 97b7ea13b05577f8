import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamName, type RecordedEvent } from '#warden/kernel';
import { anEvent } from '../../../test/support/events.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { type EventStore, WrongExpectedRevisionError } from './event-store.port.js';

/**
 * The one behaviour every EventStore adapter must show (docs/architecture.md, "Event store port"). Positions are
 * compared relatively, so the suite also runs against a server that already holds events.
 */
export function eventStoreContract(adapter: string, open: () => Promise<EventStore>, features: { groups?: boolean } = {}): void {
  describe(`EventStore contract: ${adapter}`, () => {
    let store: EventStore;
    const run = randomUUID().slice(0, 8);
    const stream = (name: string) => streamName('contract_test', run, name);

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('appends to a new stream and reads it back with data and metadata intact', async () => {
      const s = stream('new');
      const e1 = anEvent('A', { n: 1, nested: { list: [1, 'two', null, true] } });
      const e2 = anEvent('B', { n: 2 });
      const result = await store.append(s, [e1, e2], 'no_stream');
      expect(result.nextRevision).toBe(1);
      const read = await store.readStream(s);
      expect(read.map((e) => [e.id, e.type, e.revision, e.streamName])).toEqual([
        [e1.id, 'A', 0, s],
        [e2.id, 'B', 1, s],
      ]);
      expect(read[0]!.data).toEqual(e1.data);
      expect(read[0]!.metadata).toEqual(e1.metadata);
      expect(read[1]!.position).toBe(result.position);
      expect(read[1]!.position).toBeGreaterThan(read[0]!.position);
    });

    it('returns an empty list for a stream that does not exist', async () => {
      expect(await store.readStream(stream('missing'))).toEqual([]);
    });

    it('reads a stream from a revision with a maximum count', async () => {
      const s = stream('partial');
      await store.append(s, [anEvent(), anEvent(), anEvent(), anEvent()], 'no_stream');
      const read = await store.readStream(s, { fromRevision: 1, maxCount: 2 });
      expect(read.map((e) => e.revision)).toEqual([1, 2]);
    });

    it('reads a stream backwards: newest first, from the end or from a revision down, with a maximum count', async () => {
      const s = stream('backwards');
      await store.append(s, [anEvent(), anEvent(), anEvent(), anEvent(), anEvent()], 'no_stream');
      expect((await store.readStream(s, { backwards: true, maxCount: 2 })).map((e) => e.revision)).toEqual([4, 3]);
      expect((await store.readStream(s, { backwards: true, fromRevision: 2, maxCount: 10 })).map((e) => e.revision)).toEqual([2, 1, 0]);
      expect((await store.readStream(s, { backwards: true })).map((e) => e.revision)).toEqual([4, 3, 2, 1, 0]);
      expect(await store.readStream(stream('backwards-missing'), { backwards: true, maxCount: 3 })).toEqual([]);
    });

    it("tells a stream's last revision without reading its events, and nothing for a stream that does not exist", async () => {
      const s = stream('last-revision');
      expect(await store.lastRevision(s)).toBeUndefined();
      await store.append(s, [anEvent(), anEvent(), anEvent()], 'no_stream');
      expect(await store.lastRevision(s)).toBe(2);
      await store.append(s, [anEvent()], 2);
      expect(await store.lastRevision(s)).toBe(3);
      // Another stream whose name begins with this one's is another stream.
      expect(await store.lastRevision(`${s}x`)).toBeUndefined();
    });

    it('enforces the expected revision: no_stream, exact and any', async () => {
      const s = stream('expected');
      await store.append(s, [anEvent()], 'no_stream');
      await expect(store.append(s, [anEvent()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(s, [anEvent()], 5)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(stream('expected-none'), [anEvent()], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.append(s, [anEvent()], 0)).nextRevision).toBe(1);
      expect((await store.append(s, [anEvent()], 'any')).nextRevision).toBe(2);
      expect((await store.append(stream('expected-any'), [anEvent()], 'any')).nextRevision).toBe(0);
      expect(await store.readStream(s)).toHaveLength(3);
    });

    it('lets exactly one of 20 concurrent appends with the same expected revision win, nothing half-written', async () => {
      const s = stream('race');
      await store.append(s, [anEvent('Start')], 'no_stream');
      const attempts = Array.from({ length: 20 }, (_, i) => store.append(s, [anEvent('Step', { i }), anEvent('Step', { i })], 0));
      const outcomes = await Promise.allSettled(attempts);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const l of lost) expect((l as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      const events = await store.readStream(s);
      expect(events).toHaveLength(3);
      expect(events[1]!.data['i']).toBe(events[2]!.data['i']);
    });

    it('treats re-appending the same event ids to the same stream as a no-op', async () => {
      const s = stream('idempotent');
      const e = [anEvent(), anEvent()];
      await store.append(s, e, 'no_stream');
      await store.append(s, e, 'no_stream').catch(() => undefined);
      await store.append(s, e, 'any');
      expect((await store.readStream(s)).map((x) => x.id)).toEqual(e.map((x) => x.id));
    });

    it('reads all events after a position in log order', async () => {
      const head = await store.headPosition();
      const a = stream('all-a');
      const b = stream('all-b');
      await store.append(a, [anEvent('X', { k: 1 })], 'no_stream');
      await store.append(b, [anEvent('X', { k: 2 })], 'no_stream');
      await store.append(a, [anEvent('X', { k: 3 })], 0);
      const mine = (await store.readAll({ after: head })).filter((e) => e.streamName === a || e.streamName === b);
      expect(mine.map((e) => e.data['k'])).toEqual([1, 2, 3]);
      const positions = mine.map((e) => e.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(positions[2]!);
      expect(await store.readAll({ after: head, maxCount: 1 })).toHaveLength(1);
    });

    it('subscribes from a checkpoint: catch-up, then live, in log order', async () => {
      const s = stream('sub');
      await store.append(s, [anEvent('Old', { k: 0 })], 'no_stream');
      const checkpoint = await store.headPosition();
      await store.append(s, [anEvent('Caught', { k: 1 })], 0);
      const seen: RecordedEvent[] = [];
      let caughtUp = false;
      const sub = store.subscribeToAll({
        after: checkpoint,
        onEvents: async (events) => {
          seen.push(...events.filter((e) => e.streamName === s));
        },
        onCaughtUp: () => {
          caughtUp = true;
        },
      });
      await waitFor(() => seen.length === 1 && caughtUp, 'the caught-up event and the caught-up signal');
      await store.append(s, [anEvent('Live', { k: 2 }), anEvent('Live', { k: 3 })], 1);
      await waitFor(() => seen.length === 3, 'the two live events');
      await sub.stop();
      expect(seen.map((e) => e.data['k'])).toEqual([1, 2, 3]);
      expect(seen.every((e, i) => i === 0 || e.position > seen[i - 1]!.position)).toBe(true);
    });

    it('delivers every event of the types a typed subscriber names, in order, and accounts for the head', async () => {
      const s = stream('typed');
      const after = await store.headPosition();
      await store.append(s, [anEvent('Wanted', { k: 1 }), anEvent('Unwanted'), anEvent('Wanted', { k: 2 }), anEvent('Unwanted')], 'no_stream');
      const head = await store.headPosition();
      const wanted: RecordedEvent[] = [];
      let accounted = after;
      const sub = store.subscribeToAll({
        after,
        eventTypes: ['Wanted'],
        onEvents: async (events, through) => {
          wanted.push(...events.filter((e) => e.streamName === s && e.type === 'Wanted'));
          accounted = Math.max(accounted, through ?? 0, ...events.map((e) => e.position));
        },
      });
      // Adapters may leave the other types out (then `through` carries the position) or not.
      await waitFor(() => wanted.length === 2 && accounted >= head, `both wanted events and the position ${head} accounted for`);
      await sub.stop();
      expect(wanted.map((e) => e.data['k'])).toEqual([1, 2]);
      expect(wanted[0]!.position).toBeLessThan(wanted[1]!.position);
      const read = await store.readAll({ after, eventTypes: ['Wanted'] });
      expect(read.filter((e) => e.type === 'Wanted' && e.streamName === s).map((e) => e.data['k'])).toEqual([1, 2]);
    });

    it('stops delivering after stop()', async () => {
      const s = stream('stop');
      const after = await store.headPosition();
      const mine = (events: readonly RecordedEvent[]) => events.filter((e) => e.streamName === s).map((e) => e.id);
      const seen: string[] = [];
      const witnessed: string[] = [];
      const sub = store.subscribeToAll({
        after,
        onEvents: async (events) => {
          seen.push(...mine(events));
        },
      });
      // A second subscription over the same log shows when live events have been delivered.
      const witness = store.subscribeToAll({
        after,
        onEvents: async (events) => {
          witnessed.push(...mine(events));
        },
      });
      await sub.stop();
      await store.append(s, [anEvent()], 'no_stream');
      const marker = anEvent('Marker');
      await store.append(s, [marker], 0);
      await waitFor(() => witnessed.includes(marker.id), 'a live subscription to be handed the event and a later marker');
      await witness.stop();
      expect(witnessed).toHaveLength(2);
      expect(seen).toEqual([]);
    });

    describe.skipIf(!features.groups)('consumer groups (subscribeToGroup)', () => {
      it('shares the events of the named types among the members, at least once, and redelivers a failed batch', async () => {
        const s = stream('group');
        const group = `contract-${run}`;
        const startAfter = await store.headPosition();
        const seen = new Map<string, number>();
        let failures = 0;
        const member = (failOnce: boolean) =>
          store.subscribeToGroup!({
            group,
            eventTypes: ['GroupWanted'],
            startAfter,
            onEvents: async (events) => {
              expect(events.every((e) => e.type === 'GroupWanted')).toBe(true);
              if (failOnce && failures === 0) {
                failures++;
                throw new Error('handler failed once');
              }
              for (const e of events) if (e.streamName === s) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
            },
          });
        const one = member(true);
        const two = member(false);
        const ids: string[] = [];
        for (let i = 0; i < 20; i++) {
          const e = anEvent('GroupWanted', { i });
          ids.push(e.id);
          await store.append(s, [e, anEvent('GroupUnwanted')], i === 0 ? 'no_stream' : 2 * i - 1);
        }
        await waitFor(() => ids.every((id) => seen.has(id)), { what: 'every wanted event handled by a member', timeoutMs: 30_000 });
        await Promise.all([one.stop(), two.stop()]);
        expect(failures).toBe(1);
        // The group's checkpoint as the server reports it (where a successor's group starts:
        // docs/operations.md, "Upgrading: the actions reactor"); a group that does not exist has none.
        expect(store.groupCheckpoint).toBeTypeOf('function');
        const checkpoint = await store.groupCheckpoint!(group);
        expect(checkpoint).toBeTypeOf('number');
        expect(checkpoint!).toBeLessThanOrEqual(await store.headPosition());
        expect(await store.groupCheckpoint!(`${group}-never-created`)).toBeUndefined();
      }, 40_000);
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
