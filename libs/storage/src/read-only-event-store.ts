import { EventStoreDecorator } from '#warden/eventstore';
import { type NewEvent, type RecordedEvent, unavailable } from '#warden/kernel';

/** What a refused append says: the operator reads it in a 503 body or a CLI error. */
export const READ_ONLY_APPEND = 'This data directory is served read-only (WARDEN_READ_ONLY, e.g. a replayed one): nothing is appended to its log';

/**
 * The log of a read-only process (WARDEN_READ_ONLY): every append is refused, whatever asks for it.
 * The HTTP layer already refuses changing requests, but a GET or a console sign-in may still cause
 * an append (a session opened, a failed sign-in recorded, a password rehashed): a replayed log must
 * stay exactly the copy that was checked against the recorded chain (docs/audit.md, "Replay").
 */
export class ReadOnlyEventStore extends EventStoreDecorator {
  protected onAppend(): readonly NewEvent[] {
    throw unavailable(READ_ONLY_APPEND);
  }

  protected onRead(events: readonly RecordedEvent[]): RecordedEvent[] {
    return events as RecordedEvent[];
  }
}
