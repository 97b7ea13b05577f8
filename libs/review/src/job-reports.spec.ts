import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#warden/eventstore';
import { FixedClock, randomIds } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { CountingEventStore } from '../../../test/support/counting-event-store.js';
import { reportRequest } from '../../../test/support/review-events.js';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { carriedJob } from './domain/job-requests.js';
import { reviewJobDecider } from './domain/review-job.decider.js';
import { reviewJobStream } from './domain/review.streams.js';
import { JobEnqueuer } from './enqueue/job-enqueuer.js';
import { JobReports } from './job-reports.js';

const ORG = 'acme';
const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const context = { orgId: ORG, correlationId: 'test', actor: 'test' };

describe("JobReports: a job's reports, from its history", () => {
  const stores = sqliteStores();
  afterAll(() => stores.close());

  const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
  const events = new CountingEventStore(new SqliteEventStore(stores.open()));
  const aggregates = new AggregateStore(events, clock, randomIds);
  const enqueuer = new JobEnqueuer(aggregates, clock);
  const jobReports = new JobReports(aggregates, events);
  const report = (id: string) =>
    enqueuer.enqueue(context, { queueId: 'default', item, request: reportRequest(id), reasons: { [id]: `reason ${id}` }, subject: 'user:u1' });

  it('reads on from an earlier read (a decision tried again after a merge): only the events since', async () => {
    const first = await report('r1');
    await report('r2');
    await report('r3');
    const stream = reviewJobStream(ORG, first.jobId);
    const stateAtThree = await aggregates.state(stream, reviewJobDecider);

    events.reset();
    const read = await jobReports.history(ORG, first.jobId);
    expect(events.eventsRead).toBe(3);
    expect(read.read).toBe(3);

    // Two reports merged meanwhile (another process): the next read hands back those two only.
    await report('r4');
    await report('r5');
    events.reset();
    const again = await jobReports.history(ORG, first.jobId, read);
    expect(events.eventsRead).toBe(2);
    expect(again.read).toBe(5);
    expect(again.requests.map((r) => r.requestId)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(again.reasons).toEqual({ r1: 'reason r1', r2: 'reason r2', r3: 'reason r3', r4: 'reason r4', r5: 'reason r5' });

    // The reports of a state are its own requests', however far the history was read.
    const atThree = await jobReports.of(ORG, stateAtThree, again);
    expect(atThree.map((r) => [r.reportId, r.reason])).toEqual([
      ['r1', 'reason r1'],
      ['r2', 'reason r2'],
      ['r3', 'reason r3'],
    ]);
    const now = await jobReports.of(ORG, await aggregates.state(stream, reviewJobDecider), again);
    expect(now).toHaveLength(5);
  });

  it("lists the reports of a job a move named (carriedFrom), each with its reason from that job's stream", async () => {
    const old = await report('r6');
    const oldRequests = (await jobReports.history(ORG, old.jobId)).requests;
    const moved = await enqueuer.enqueue(context, {
      queueId: 'other',
      item,
      request: { ...reportRequest('dec-1'), source: 'MRT_JOB', report: null, fromJobId: old.jobId },
      carriedFrom: carriedJob(old.jobId, oldRequests, 0),
    });
    const state = await aggregates.state(reviewJobStream(ORG, moved.jobId), reviewJobDecider);
    expect(state.requestCount).toBe(oldRequests.length + 1);
    // The moved job is read once for its requests and their reasons (one event of the new job, the old job's six).
    events.reset();
    const history = await jobReports.history(ORG, moved.jobId);
    const reports = await jobReports.of(ORG, state, history);
    expect(events.eventsRead).toBe(1 + oldRequests.length);
    // A decision's next try reads what is new, and not the moved job again.
    events.reset();
    await jobReports.of(ORG, state, await jobReports.history(ORG, moved.jobId, history));
    expect(events.eventsRead).toBe(0);
    expect(reports.map((r) => [r.reportId, r.reason, r.fromJobId])).toEqual(oldRequests.map((r) => [r.requestId, `reason ${r.requestId}`, old.jobId]));
  });
});
