import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { LogTail, type LogTailSource } from './log-tail.js';

/** An in-memory log with the source's contract, counting the reads the tail makes of it. */
function memoryLog(initial = 0) {
  const events: RecordedEvent[] = [];
  let generation = 0;
  let reads = 0;
  const append = (type: string) => {
    const position = (events.at(-1)?.position ?? 0) + 1;
    events.push({ id: `e${position}`, type, streamName: 's-1', revision: position - 1, position, data: {}, metadata: {} as RecordedEvent['metadata'] });
    generation++;
  };
  for (let i = 0; i < initial; i++) append('Old');
  const source: LogTailSource = {
    readAfter: (after, max) => {
      reads++;
      return events.filter((e) => e.position > after).slice(0, max);
    },
    generation: () => generation,
    head: () => events.at(-1)?.position ?? 0,
  };
  return { source, append, reads: () => reads };
}

describe('the shared tail of the log', () => {
  it('reads the new events once for every subscriber, each getting the types it asked for', () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, 100, 50);
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
    const tail = new LogTail(log.source, 100, 50);
    expect(tail.read(2, undefined, 10)).toBeUndefined();
    log.append('New');
    expect(tail.read(5, undefined, 10)!.events.map((e) => e.position)).toEqual([6]);
  });

  it('hands out at most a batch, and says when more may follow', () => {
    const log = memoryLog();
    const tail = new LogTail(log.source, 100, 3);
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
    const tail = new LogTail(log.source, 3, 10);
    tail.read(0, undefined, 10);
    for (let i = 0; i < 5; i++) log.append('A');
    expect(tail.read(4, undefined, 10)!.events.map((e) => e.position)).toEqual([5]);
    expect(tail.read(1, undefined, 10)).toBeUndefined();
    expect(tail.read(2, undefined, 10)!.events.map((e) => e.position)).toEqual([3, 4, 5]);
  });
});
