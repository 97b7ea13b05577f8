import { Logger } from '@nestjs/common';
import type { ActionExecuted } from '#warden/enforcement/contracts';
import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { RecordedOf } from '#warden/kernel';
import type { ReviewJobDecided } from '../domain/review-job.events.js';
import type { JobAutoCloser } from './job-auto-closer.js';

export const AUTO_CLOSE_REACTOR = 'review-auto-close';
/** How often the worker closes the jobs that waited too long. */
export const EXPIRY_SWEEP_MS = 60_000;

/**
 * The system's AUTOMATIC_CLOSE. On a CUSTOM_ACTION decision (the item was actioned) the item's
 * other open jobs close with ITEM_ACTIONED; on an action the platform executed (ActionExecuted,
 * POST /api/v1/actions) the open jobs of its `reportedItems` do. While this reactor runs in a process (one worker: it
 * holds the reactor's lease), a timer closes the jobs that waited longer than their queue's
 * `autoCloseAfterDays` (EXPIRED) every minute.
 */
export function autoCloseReactor(deps: { closer: JobAutoCloser; sweepEveryMs?: number }): Projection {
  const logger = new Logger('review');
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    sweeping ??= deps.closer
      .closeExpired({ correlationId: `auto-close-sweep`, causationId: null, actor: 'review' })
      .then((closed) => closed > 0 && logger.log({ msg: 'expired review jobs closed', closed }))
      .catch((error: unknown) => logger.warn({ msg: 'closing expired review jobs failed', error: String(error) }))
      .finally(() => (sweeping = undefined));
  };
  const closeOthers = async (event: RecordedOf<ReviewJobDecided | ActionExecuted>) => {
    const context = { orgId: event.metadata.orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'review' };
    if (event.type === 'ActionExecuted') {
      await deps.closer.closeJobsOfReportedItems(event.data, context);
      return;
    }
    const { data } = event;
    if (data.type !== 'CUSTOM_ACTION') return;
    await deps.closer.closeOtherJobs(data, context);
  };
  return eventProjection<ReviewJobDecided | ActionExecuted>({
    name: AUTO_CLOSE_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReviewJobDecided', 'ActionExecuted'],
    needsPersonalData: false,
    // By the deciding job or the executed action: each closes its own item's other jobs.
    keyOf: (event) => orderingKey(event, event.streamName),
    apply: closeOthers,
    activate: () => {
      timer = setInterval(sweep, deps.sweepEveryMs ?? EXPIRY_SWEEP_MS);
      timer.unref();
      sweep();
    },
    deactivate: async () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  });
}
