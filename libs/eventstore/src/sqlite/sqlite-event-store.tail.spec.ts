import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { anEvent } from '../../../../test/support/events.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { openSqlite } from './sqlite-database.js';
import { SqliteEventStore } from './sqlite-event-store.js';

/** A seeded generator: a failing run can be replayed with its SEED. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

/**
 * The shared tail (LogTail) under what the worker sees: two connections appending (another process),
 * typed and untyped subscribers, slow ones, ones starting behind the tail, and bursts larger than a
 * refresh and than the tail itself.
 */
describe('subscriptions over the shared tail, with two connections appending', () => {
  it('delivers every event exactly once, in order, to typed and untyped subscriptions', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-tail-')), 'warden.db');
    const dbA = openSqlite(file, { synchronous: 'normal' });
    const dbB = openSqlite(file, { synchronous: 'normal' });
    const a = new SqliteEventStore(dbA, { pollIntervalMs: 5 });
    const b = new SqliteEventStore(dbB, { pollIntervalMs: 5 });
    const rand = rng(Number(process.env.SEED ?? 42));
    const types = ['T1', 'T2', 'T3'];
    let n = 0;
    const appendSome = async (store: SqliteEventStore, count: number) => {
      const evs = Array.from({ length: count }, () => anEvent(types[Math.floor(rand() * 3)]!, { n: n++ }));
      await store.append(`s-${n}-${Math.floor(rand() * 1e9)}`, evs, 'no_stream');
    };
    // History before the subscriptions start: some of them begin behind the tail.
    for (let i = 0; i < 30; i++) await appendSome(a, 100);
    const specs: Array<{ types?: string[]; after: number; slow: number }> = [
      { after: 0, slow: 0 },
      { types: ['T1'], after: 0, slow: 0 },
      { types: ['T2', 'T3'], after: 1500, slow: 1 },
      { after: 2999, slow: 3 },
      { types: ['T3'], after: 3000, slow: 0 },
      { after: 3000, slow: 0 },
      { types: ['T2'], after: 100, slow: 7 },
    ];
    const got = specs.map(() => [] as RecordedEvent[]);
    const throughs = specs.map(() => [] as number[]);
    const subs = specs.map((s, i) =>
      a.subscribeToAll({
        after: s.after,
        eventTypes: s.types,
        onEvents: async (events, through) => {
          got[i]!.push(...events);
          throughs[i]!.push(through ?? events.at(-1)!.position);
          if (s.slow) await new Promise((r) => setTimeout(r, s.slow));
        },
        onError: (e) => {
          throw e;
        },
      }),
    );
    for (let round = 0; round < 60; round++) {
      const r = rand();
      const store = r < 0.5 ? b : a;
      const size = rand() < 0.1 ? 2500 + Math.floor(rand() * 3000) : 1 + Math.floor(rand() * 20);
      await appendSome(store, size);
      if (rand() < 0.3) await new Promise((res) => setTimeout(res, Math.floor(rand() * 15)));
      if (rand() < 0.2) await Promise.all([appendSome(a, 3), appendSome(b, 4), appendSome(a, 5)]);
    }
    const all = await a.readAll();
    const head = all.at(-1)!.position;
    await waitFor(() => specs.every((_, i) => (throughs[i]!.at(-1) ?? 0) >= head), {
      what: 'every subscription at the head',
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    for (const [i, s] of specs.entries()) {
      const expected = all.filter((e) => e.position > s.after && (!s.types || s.types.includes(e.type))).map((e) => e.position);
      expect(
        got[i]!.map((e) => e.position),
        `sub ${i}`,
      ).toEqual(expected);
      expect(throughs[i]!.at(-1), `sub ${i} through`).toBe(head);
      const t = throughs[i]!;
      for (let k = 1; k < t.length; k++) expect(t[k]! > t[k - 1]!, `sub ${i} through monotonic`).toBe(true);
    }
    await Promise.all(subs.map((s) => s.stop()));
    await a.close();
    await b.close();
    dbA.close();
    dbB.close();
  }, 120_000);
});

describe("another connection's commits in this process", () => {
  // The background thread and the HTTP thread of one process append to one file through
  // connections of their own: a commit through one wakes the other's subscribers at once
  // (LogNotifier's broadcast channel, which reaches every thread), not at its next poll of
  // data_version. The poll here would take an hour: only the channel can wake the reader.
  it('wakes the subscribers of the other connection without waiting for its poll', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-tail-')), 'warden.db');
    const dbA = openSqlite(file, { synchronous: 'normal' });
    const dbB = openSqlite(file, { synchronous: 'normal' });
    const a = new SqliteEventStore(dbA, { pollIntervalMs: 3_600_000 });
    const b = new SqliteEventStore(dbB, { pollIntervalMs: 3_600_000 });
    const seen: string[] = [];
    const sub = b.subscribeToAll({
      after: 0,
      onEvents: async (events) => {
        seen.push(...events.map((e) => e.streamName));
      },
      onError: (e) => {
        throw e;
      },
    });
    for (const stream of ['first', 'second']) {
      await a.append(stream, [anEvent('Noted')], 'no_stream');
      await waitFor(() => seen.includes(stream), `the other connection's subscriber to see ${stream}`);
    }
    expect(seen).toEqual(['first', 'second']);
    await sub.stop();
    await a.close();
    await b.close();
    dbA.close();
    dbB.close();
  });
});
