import type { ReadStore } from '#warden/readstore';
import { CALLBACK_SCHEDULE, type CallbackScheduleDoc } from '../projections/callback-deliveries.read-model.js';

/** Scheduled deliveries read at once, and so in one turn of the event loop, when delivering starts. */
export const SCHEDULE_PAGE = 1_000;

const keyOf = (doc: CallbackScheduleDoc) => `${doc.orgId}\u0000${doc.deliveryId}`;

/**
 * Hands every delivery the read model has scheduled to `schedule`, soonest first, SCHEDULE_PAGE at a
 * time with a turn of the event loop between pages: a receiver down for a day under a busy rule
 * leaves hundreds of thousands, which one read loaded, parsed and scheduled in a single turn. Pages
 * follow the index on nextAttemptAt from the last time read (a filter has no "after", so the
 * deliveries at that very time already handed over are passed by key). A delivery sent and
 * removed meanwhile is not read; one rescheduled later may be read again, which the dispatcher's
 * schedule takes (a later revision replaces a timer, an older one changes nothing). Returns how
 * many were handed over.
 */
export async function forEachScheduledDelivery(readStore: ReadStore, schedule: (doc: CallbackScheduleDoc) => void): Promise<number> {
  let count = 0;
  let after: { readonly at: string; readonly keys: ReadonlySet<string> } | undefined;
  for (;;) {
    const limit = SCHEDULE_PAGE + (after?.keys.size ?? 0);
    const page = await readStore.find<CallbackScheduleDoc>(CALLBACK_SCHEDULE, after ? { nextAttemptAt: { gte: after.at } } : {}, {
      sort: [{ field: 'nextAttemptAt', direction: 'asc' }],
      limit,
    });
    for (const doc of page) {
      if (after && doc.nextAttemptAt === after.at && after.keys.has(keyOf(doc))) continue;
      schedule(doc);
      count++;
    }
    if (page.length < limit) return count;
    const at = page.at(-1)!.nextAttemptAt;
    const keys = new Set(page.filter((doc) => doc.nextAttemptAt === at).map(keyOf));
    if (after?.at === at) for (const key of after.keys) keys.add(key);
    after = { at, keys };
    await new Promise((resolve) => setImmediate(resolve));
  }
}
