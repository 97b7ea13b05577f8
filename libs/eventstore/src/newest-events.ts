import type { RecordedEvent } from '#warden/kernel';
import type { EventStore } from './event-store.port.js';

export interface NewestEventsOptions {
  /** How many accepted events to hand back at most. */
  readonly count: number;
  /** The events wanted (default: every one). */
  readonly wanted?: (event: RecordedEvent) => boolean;
  /** An event past which (going back) nothing wanted can be: the read stops there, without it. */
  readonly stop?: (event: RecordedEvent) => boolean;
  /** The newest revision to read (default: the stream's last). */
  readonly through?: number;
  /** Events read back at a time (default 64). */
  readonly pageSize?: number;
  /** Told each page as read (newest first): true stops the read there (a reader that counts what the events hold). */
  readonly until?: (page: readonly RecordedEvent[]) => boolean;
}

/**
 * A stream's newest wanted events, newest first, read backwards a page at a time: up to `count`,
 * or until `stop` or the stream's start. For readers of a stream's newest part — a job's decision,
 * an item's latest version, a user's latest strikes — whose cost must not grow with the stream's
 * length (docs/architecture.md, "Streams and what a command costs").
 */
export async function newestEvents(store: Pick<EventStore, 'readStream'>, stream: string, options: NewestEventsOptions): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  const pageSize = options.pageSize ?? 64;
  let next = options.through;
  while (found.length < options.count && (next === undefined || next >= 0)) {
    const page = await store.readStream(stream, { backwards: true, fromRevision: next, maxCount: pageSize });
    for (const event of page) {
      if (options.stop?.(event)) return found;
      if (options.wanted && !options.wanted(event)) continue;
      found.push(event);
      if (found.length === options.count) return found;
    }
    if (page.length < pageSize || options.until?.(page)) return found;
    next = page[page.length - 1]!.revision - 1;
  }
  return found;
}
