import { describe, expect, it } from 'vitest';
import { reportRequest } from '../../../../test/support/review-events.js';
import { reviewWriteSide } from '../../../../test/support/review-write-side.js';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import { reviewJobId, reviewJobStream } from '../domain/review.streams.js';
import { CLOCK_SKEW_MS, firstNotClosed, JobEnqueuer, RERUN_WINDOW } from './job-enqueuer.js';

describe('the first generation not closed (firstNotClosed)', () => {
  it('finds it from any lower bound in O(log G) probes', async () => {
    for (const closedCount of [0, 1, 2, 3, 7, 8, 100, 1_000, 10_000]) {
      for (const from of new Set([0, Math.floor(closedCount / 3), closedCount])) {
        let probes = 0;
        const closed = (g: number) => Promise.resolve((probes++, g < closedCount));
        expect(await firstNotClosed(closed, from), `${closedCount} closed, from ${from}`).toBe(closedCount);
        expect(probes, `${closedCount} closed, from ${from}`).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(closedCount - from + 2)) + 2);
      }
    }
  });
});

describe('enqueueing after many closed jobs of one item (JobEnqueuer, a real embedded log)', () => {
  const { aggregates, events, clock } = reviewWriteSide();
  const context = { orgId: 'acme', correlationId: 'test', actor: 'test' };
  const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
  // Made when enqueued: a minute passes between the jobs below.
  const request = (id: string) => reportRequest(id, { at: clock.now().toISOString() });
  const stream = (generation: number) => reviewJobStream('acme', reviewJobId('acme', item, 'default', generation));

  /** Opens a job with the request and closes it (the queue's automatic close), as a decided report leaves it. */
  async function openAndClose(enqueuer: JobEnqueuer, requestId: string) {
    const enqueued = await enqueuer.enqueue(context, { queueId: 'default', item, request: request(requestId) });
    await aggregates.handle(
      stream(enqueued.generation),
      reviewJobDecider,
      { type: 'AutoClose', decisionId: `d-${requestId}`, closeReason: 'ITEM_ACTIONED', now: clock.now().toISOString() },
      context,
    );
    clock.advance(60_000);
    return enqueued.generation;
  }

  it('opens the next job after 300 closed ones reading a handful of streams, and finds a re-run request in the jobs just closed', async () => {
    const enqueuer = new JobEnqueuer(aggregates, clock);
    for (let i = 0; i < 300; i++) expect(await openAndClose(enqueuer, `r${i}`)).toBe(i);

    // A process that knows nothing (a restart): the walk gallops from generation 0.
    aggregates.forgetCached();
    const fresh = new JobEnqueuer(aggregates, clock);
    const before = events.streamReads;
    const opened = await fresh.enqueue(context, { queueId: 'default', item, request: request('r-new') });
    expect(opened).toMatchObject({ generation: 300, appended: true });
    // Galloping and halving (about 2 log2 300 ≈ 17 jobs), the window below, the jobs opened within the
    // clocks' skew before the request was made (one a minute), and the new job: not 300.
    expect(events.streamReads - before).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(302)) + 2 + RERUN_WINDOW + CLOCK_SKEW_MS / 60_000 + 4);

    // Re-runs of requests merged a moment ago, in the open job and in the closed ones just below it, append nothing.
    expect(await fresh.enqueue(context, { queueId: 'default', item, request: request('r-new') })).toMatchObject({ generation: 300, appended: false });
    expect(await fresh.enqueue(context, { queueId: 'default', item, request: request('r299') })).toMatchObject({ generation: 299, appended: false });
    expect(await fresh.enqueue(context, { queueId: 'default', item, request: request(`r${300 - RERUN_WINDOW}`) })).toMatchObject({
      generation: 300 - RERUN_WINDOW,
      appended: false,
    });

    // The next request after that job closes: one more generation, found from what this process remembers.
    await aggregates.handle(
      stream(300),
      reviewJobDecider,
      { type: 'AutoClose', decisionId: 'd-new', closeReason: 'ITEM_ACTIONED', now: clock.now().toISOString() },
      context,
    );
    const reads = events.streamReads;
    expect(await fresh.enqueue(context, { queueId: 'default', item, request: request('r-next') })).toMatchObject({ generation: 301, appended: true });
    expect(events.streamReads - reads).toBeLessThanOrEqual(RERUN_WINDOW + CLOCK_SKEW_MS / 60_000 + 6);
  });

  it('finds a re-run request in a job closed below the window, when the jobs after it opened after the request was made', async () => {
    const enqueuer = new JobEnqueuer(aggregates, clock);
    const other = { id: 'p2', typeId: 'post', typeName: 'Post' };
    const streamOf = (generation: number) => reviewJobStream('acme', reviewJobId('acme', other, 'default', generation));
    const close = (generation: number, decisionId: string) =>
      aggregates.handle(
        streamOf(generation),
        reviewJobDecider,
        { type: 'AutoClose', decisionId, closeReason: 'ITEM_ACTIONED', now: clock.now().toISOString() },
        context,
      );
    // The request is made (and merged into generation 0) before the crash; twelve jobs open and close after it.
    const made = reportRequest('early', { at: clock.now().toISOString() });
    expect(await enqueuer.enqueue(context, { queueId: 'default', item: other, request: made })).toMatchObject({ generation: 0, appended: true });
    await close(0, 'd-early');
    for (let g = 1; g <= RERUN_WINDOW + 4; g++) {
      await enqueuer.enqueue(context, { queueId: 'default', item: other, request: reportRequest(`later-${g}`, { at: clock.now().toISOString() }) });
      await close(g, `d-later-${g}`);
    }
    // Redelivered: found where it went, nothing appended.
    expect(await enqueuer.enqueue(context, { queueId: 'default', item: other, request: made })).toMatchObject({ generation: 0, appended: false });
  });
});
