import type { NewEvent } from '#warden/kernel';
import { type AppendResult, type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from '#warden/eventstore';
import type { Metrics } from '#warden/platform';

/** Records append latency, volume and conflicts; everything else passes through. */
export function instrumentEventStore(inner: EventStore, metrics: Metrics): EventStore {
  return {
    async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
      const end = metrics.appendDuration.startTimer();
      try {
        const result = await inner.append(streamName, events, expected);
        metrics.appendedEvents.inc(events.length);
        return result;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) metrics.appendConflicts.inc();
        throw error;
      } finally {
        end();
      }
    },
    readStream: (s, o) => inner.readStream(s, o),
    lastRevision: (s) => inner.lastRevision(s),
    readAll: (o) => inner.readAll(o),
    subscribeToAll: (o) => inner.subscribeToAll(o),
    headPosition: () => inner.headPosition(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
