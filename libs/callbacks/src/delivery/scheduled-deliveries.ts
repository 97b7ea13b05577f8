import { findAfter, type ReadStore } from '#warden/readstore';
import { CALLBACK_SCHEDULE, type CallbackScheduleDoc } from '../projections/callback-deliveries.read-model.js';

/** Scheduled deliveries read at once, and so in one turn of the event loop, when delivering starts. */
export const SCHEDULE_PAGE = 1_000;

type ScheduleKey = Pick<CallbackScheduleDoc, 'nextAttemptAt' | 'deliveryId'>;

/**
 * Hands every delivery the read model has scheduled to `schedule`, soonest first, SCHEDULE_PAGE at a
 * time with a turn of the event loop between pages: a receiver down for a day under a busy rule
 * leaves hundreds of thousands, which one read loaded, parsed and scheduled in a single turn. Pages
 * follow the index on (nextAttemptAt, deliveryId) from the last one read (findAfter), so many
 * deliveries due at one instant cost no more than others. A delivery sent and removed meanwhile is
 * not read; one rescheduled later may be read again, which the dispatcher's schedule takes (a later
 * revision replaces a timer, an older one changes nothing). Returns how many were handed over.
 */
export async function forEachScheduledDelivery(readStore: ReadStore, schedule: (doc: CallbackScheduleDoc) => void): Promise<number> {
  let count = 0;
  let last: ScheduleKey | undefined;
  for (;;) {
    const page = await findAfter<CallbackScheduleDoc>(readStore, CALLBACK_SCHEDULE, {}, ['nextAttemptAt', 'deliveryId'], last, SCHEDULE_PAGE);
    for (const doc of page) schedule(doc);
    count += page.length;
    if (page.length < SCHEDULE_PAGE) return count;
    last = page.at(-1)!;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
