import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { LogTail, type LogTailSource } from './log-tail.js';

/** An in-memory log with the source's contract, counting the reads the tail makes of it. */
function memoryLog(initial = 0) {
  const events: RecordedEvent[] = [];
  let generation = 0;
  let reads = 0;
  /** Appends an event; `noticed: false` is another process's commit that no poll has seen yet. */
  const append = (type: string, noticed = true) => {
    const position = (events.at(-1)?.position ?? 0) + 1;
    events.push({ id: `e${position}`, type, streamName: 's-1', revision: position - 1, position, data: {}, metadata: {} as RecordedEvent['metadata'] });
    if (noticed) generation++;
  };
  const notice = () => generation++;
  for (let i = 0; i < initial; i++) append('Old');
  const source: LogTailSource = {
    readAfter: (after, max) => {
      reads++;
      return events
        .filter((e) => e.position > after)
        .slice(0, max)
        .map((event) => ({ event, size: 100 }));
    },
    generation: () => generation,
    head: () => events.at(-1)?.position ?? 0,
  };
  return { source, append, notice, reads: () => reads };
}

describe('the shared tail of the log', () => {
  it('reads the new events once for every subscriber, each getting the types it asked for', () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, { events: 100, size: 1_000_000, refresh: 50 });
    expect(tail.read(0, undefined, 10)).toMatchObject({ events: [], through: 0, complete: true });
    log.append('A');
    log.append('B');
    log.append('A');
    const a = tail.read(0, new Set(['A']), 10)!;
    const all = tail.read(0, undefined, 10)!;
    expect(a.events.map((e) => e.position)).toEqual([1, 3]);
    expect(a).toMatchObject({ through: 3, complete: true });
    expect(all.events.map((e) => e.type)).toEqual(['A', 'B', 'A']);
    // One read of the log for both subscribers, after the one that found the log empty.
    expect(log.reads()).toBe(2);
    // No change since: no read at all.
    expect(tail.read(3, undefined, 10)).toMatchObject({ events: [], through: 3, complete: true });
    expect(log.reads()).toBe(2);
  });

  it('starts at the head: a subscriber behind it reads the log itself', () => {
    const log = memoryLog(5);
    const tail = new LogTail(log.source, { events: 100, size: 1_000_000, refresh: 50 });
    expect(tail.read(2, undefined, 10)).toBeUndefined();
    log.append('New');
    expect(tail.read(5, undefined, 10)!.events.map((e) => e.position)).toEqual([6]);
  });

  it('hands out at most a batch, and says when more may follow', () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, { events: 100, size: 1_000_000, refresh: 3 });
    tail.read(0, undefined, 10);
    for (let i = 0; i < 5; i++) log.append('A');
    const first = tail.read(0, undefined, 2)!;
    expect(first).toMatchObject({ through: 2, complete: false });
    // The first refresh was capped at 3 events, so the next read goes back to the log for the rest.
    const second = tail.read(2, undefined, 10)!;
    expect(second.events.map((e) => e.position)).toEqual([3, 4, 5]);
    expect(second).toMatchObject({ through: 5, complete: true });
    expect(log.reads()).toBe(3);
  });

  it('forgets the oldest events past its capacity, and a subscriber left behind reads the log', () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, { events: 3, size: 1_000_000, refresh: 10 });
    tail.read(0, undefined, 10);
    for (let i = 0; i < 5; i++) log.append('A');
    expect(tail.read(4, undefined, 10)!.events.map((e) => e.position)).toEqual([5]);
    expect(tail.read(1, undefined, 10)).toBeUndefined();
    expect(tail.read(2, undefined, 10)!.events.map((e) => e.position)).toEqual([3, 4, 5]);
  });

  it('keeps exactly the newest events through many refreshes past its capacity, by count and by size', () => {
    for (const limits of [
      { events: 5, size: 1_000_000, refresh: 2 },
      // 100 characters an event: 450 keep four.
      { events: 100, size: 450, refresh: 3 },
    ]) {
      const log = memoryLog();
      const tail = new LogTail(log.source, limits);
      tail.read(0, undefined, 10);
      const kept = Math.min(limits.events, Math.floor(limits.size / 100));
      for (let head = 1; head <= 60; head++) {
        log.append(head % 2 === 0 ? 'A' : 'B');
        const oldest = Math.max(0, head - kept);
        expect(tail.read(oldest, undefined, 10)!.events.map((e) => e.position)).toEqual(Array.from({ length: head - oldest }, (_, i) => oldest + i + 1));
        expect(tail.read(oldest, new Set(['A']), 10)!.events.every((e) => e.type === 'A')).toBe(true);
        if (oldest > 0) expect(tail.read(oldest - 1, undefined, 10)).toBeUndefined();
      }
    }
  });

  it('keeps no more stored data than its size limit (items may be large)', () => {
    const log = memoryLog();
    // Each event is 100 characters here: 250 keep two of them.
    const tail = new LogTail(log.source, { events: 100, size: 250, refresh: 10 });
    tail.read(0, undefined, 10);
    for (let i = 0; i < 4; i++) log.append('A');
    expect(tail.read(3, undefined, 10)!.events.map((e) => e.position)).toEqual([4]);
    expect(tail.read(2, undefined, 10)!.events.map((e) => e.position)).toEqual([3, 4]);
    expect(tail.read(1, undefined, 10)).toBeUndefined();
  });

  it("sees another process's commit once the change is noticed (LogNotifier's poll), not before", () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, { events: 100, size: 1_000_000, refresh: 10 });
    tail.read(0, undefined, 10);
    log.append('A', false);
    // The subscriber then waits for the next change, which the poll reports.
    expect(tail.read(0, undefined, 10)).toMatchObject({ events: [], through: 0, complete: true });
    log.notice();
    expect(tail.read(0, undefined, 10)!.events.map((e) => e.position)).toEqual([1]);
  });
});
