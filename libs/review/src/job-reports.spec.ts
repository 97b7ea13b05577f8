import { describe, expect, it } from 'vitest';
import { reportRequest } from '../../../test/support/review-events.js';
import { reviewWriteSide } from '../../../test/support/review-write-side.js';
import { carriedJob } from './domain/job-requests.js';
import { reviewJobDecider } from './domain/review-job.decider.js';
import { reviewJobStream } from './domain/review.streams.js';

const ORG = 'acme';
const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const context = { orgId: ORG, correlationId: 'test', actor: 'test' };

describe("JobReports: a job's reports, from its history", () => {
  const { events, aggregates, enqueuer, jobReports } = reviewWriteSide();
  const report = (id: string) =>
    enqueuer.enqueue(context, { queueId: 'default', item, request: reportRequest(id), reasons: { [id]: `reason ${id}` }, subject: 'user:u1' });

  it("lists a job's newest reports as of a revision, reading back only as far as they go", async () => {
    const first = await report('a0');
    for (let i = 1; i < 300; i++) await report(`a${i}`);
    const stream = reviewJobStream(ORG, first.jobId);
    const { state, revision } = await aggregates.stateAt(stream, reviewJobDecider);
    expect([state.requestCount, state.reportCount, revision]).toEqual([300, 300, 299]);

    // The newest five: one page read back (250 events), not the 300.
    events.reset();
    const newest = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 5 });
    expect(events.eventsRead).toBe(250);
    expect(newest.fromStart).toBe(false);
    expect(jobReports.reportsOf(newest).map((r) => [r.reportId, r.reason])).toEqual(['a295', 'a296', 'a297', 'a298', 'a299'].map((id) => [id, `reason ${id}`]));

    // As of an earlier revision (the state a decision was made on): that state's own events, none after.
    events.reset();
    const early = await jobReports.newest(ORG, first.jobId, { through: 9, limit: 3 });
    expect(events.eventsRead).toBe(10);
    expect(early.fromStart).toBe(true);
    expect(early.requests.map((r) => r.requestId)).toEqual(['a7', 'a8', 'a9']);

    // Every report when there are fewer than asked, from the start.
    const all = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 1_000 });
    expect(all.fromStart).toBe(true);
    expect(all.requests).toHaveLength(300);
    expect((await jobReports.opening(ORG, first.jobId))?.type).toBe('ReviewJobOpened');
  });

  it("reads one page back for a job of rules' requests that was never reported, given its report count (the job view)", async () => {
    const rule = (id: string) => ({ ...reportRequest(id), source: 'RULE_EXECUTION' as const, report: null });
    const first = await enqueuer.enqueue(context, { queueId: 'ruled', item, request: rule('g0') });
    for (let i = 1; i < 1_200; i++) await enqueuer.enqueue(context, { queueId: 'ruled', item, request: rule(`g${i}`) });
    const { state, revision } = await aggregates.stateAt(reviewJobStream(ORG, first.jobId), reviewJobDecider);
    expect([state.requestCount, state.reportCount]).toEqual([1_200, 0]);

    events.reset();
    const counted = await jobReports.newest(ORG, first.jobId, { through: revision, reportCount: state.reportCount });
    expect(events.eventsRead).toBe(250);
    expect(counted.requests.at(-1)?.requestId).toBe('g1199');
    // Without the count, the history is read back as far as the bound allows, looking for reports.
    events.reset();
    await jobReports.newest(ORG, first.jobId, { through: revision });
    expect(events.eventsRead).toBe(1_200);

    // A report at the start: read back to it, as without the count.
    const reported = await enqueuer.enqueue(context, {
      queueId: 'ruled-2',
      item,
      request: reportRequest('h0'),
      reasons: { h0: 'reason h0' },
      subject: 'user:u1',
    });
    for (let i = 1; i < 600; i++) await enqueuer.enqueue(context, { queueId: 'ruled-2', item, request: rule(`h${i}`) });
    const at = await aggregates.stateAt(reviewJobStream(ORG, reported.jobId), reviewJobDecider);
    const window = await jobReports.newest(ORG, reported.jobId, { through: at.revision, reportCount: at.state.reportCount });
    expect(jobReports.reportsOf(window).map((r) => [r.reportId, r.reason])).toEqual([['h0', 'reason h0']]);
  });

  it("keeps the requests after the newest reports (a rule's, a move's) and counts only reports toward the limit", async () => {
    const requests = [reportRequest('b1'), { ...reportRequest('b2'), source: 'RULE_EXECUTION' as const, report: null }, reportRequest('b3')];
    const first = await enqueuer.enqueue(context, { queueId: 'rules', item, request: requests[0]!, reasons: { b1: 'reason b1' }, subject: 'user:u1' });
    await enqueuer.enqueue(context, { queueId: 'rules', item, request: requests[1]! });
    await enqueuer.enqueue(context, { queueId: 'rules', item, request: requests[2]!, reasons: { b3: 'reason b3' }, subject: 'user:u1' });
    const window = await jobReports.newest(ORG, first.jobId, { limit: 1 });
    expect(window.requests.map((r) => r.requestId)).toEqual(['b3']);
    const two = await jobReports.newest(ORG, first.jobId, { limit: 2 });
    expect(two.requests.map((r) => r.requestId)).toEqual(['b1', 'b2', 'b3']);
    const state = await aggregates.state(reviewJobStream(ORG, first.jobId), reviewJobDecider);
    expect([state.requestCount, state.reportCount, state.sources]).toEqual([3, 2, ['REPORT', 'RULE_EXECUTION']]);
  });

  it("lists the reports of a job a move named (carriedFrom), each with its reason from that job's stream, reading that job's newest only", async () => {
    const old = await enqueuer.enqueue(context, { queueId: 'named', item, request: reportRequest('c0'), reasons: { c0: 'reason c0' }, subject: 'user:u1' });
    for (let i = 1; i < 300; i++)
      await enqueuer.enqueue(context, { queueId: 'named', item, request: reportRequest(`c${i}`), reasons: { [`c${i}`]: `reason c${i}` }, subject: 'user:u1' });
    const oldRequests = (await jobReports.fromEvents(ORG, (await aggregates.load(reviewJobStream(ORG, old.jobId), reviewJobDecider)).events)).requests;
    const moved = await enqueuer.enqueue(context, {
      queueId: 'other',
      item,
      request: { ...reportRequest('dec-1'), source: 'MRT_JOB', report: null, fromJobId: old.jobId },
      carriedFrom: carriedJob(old.jobId, oldRequests, 0),
    });
    const state = await aggregates.state(reviewJobStream(ORG, moved.jobId), reviewJobDecider);
    expect([state.requestCount, state.reportCount]).toEqual([301, 300]);

    // The new job's one event, then one page of the named job's: its newest three.
    events.reset();
    const window = await jobReports.newest(ORG, moved.jobId, { limit: 3 });
    expect(events.eventsRead).toBe(1 + 250);
    expect(jobReports.reportsOf(window).map((r) => [r.reportId, r.reason, r.fromJobId])).toEqual(
      ['c297', 'c298', 'c299'].map((id) => [id, `reason ${id}`, old.jobId]),
    );
    expect(window.requests.at(-1)?.requestId).toBe('dec-1');
  });

  it('reads back to the newest csam-flagged reports however old, when asked (a decision: the state counts them)', async () => {
    const csam = (id: string) => reportRequest(id, { report: { ...reportRequest(id).report!, csam: true } });
    const first = await enqueuer.enqueue(context, { queueId: 'csam', item, request: csam('e0'), reasons: { e0: 'reason e0' }, subject: 'user:u1' });
    await enqueuer.enqueue(context, { queueId: 'csam', item, request: csam('e1'), reasons: { e1: 'reason e1' }, subject: 'user:u1' });
    for (let i = 2; i < 600; i++)
      await enqueuer.enqueue(context, { queueId: 'csam', item, request: reportRequest(`e${i}`), reasons: { [`e${i}`]: `reason e${i}` }, subject: 'user:u1' });
    const { state, revision } = await aggregates.stateAt(reviewJobStream(ORG, first.jobId), reviewJobDecider);
    expect([state.reportCount, state.csamReports]).toEqual([600, 2]);

    // Without: the newest ten, one page read.
    events.reset();
    const plain = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 10 });
    expect(plain.requests.map((r) => r.requestId)).toEqual(Array.from({ length: 10 }, (_, i) => `e${590 + i}`));
    expect(events.eventsRead).toBe(250);
    // With both flagged: read back to them (the whole of this job), listed first, with their reasons.
    const withCsam = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 10, csam: 2 });
    expect(jobReports.reportsOf(withCsam).map((r) => [r.reportId, r.reason, r.csam])).toEqual([
      ['e0', 'reason e0', true],
      ['e1', 'reason e1', true],
      ...Array.from({ length: 10 }, (_, i) => [`e${590 + i}`, `reason e${590 + i}`, false]),
    ]);
    // The newest one only, when one is asked for.
    const one = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 10, csam: 1 });
    expect(one.requests.map((r) => r.requestId).slice(0, 2)).toEqual(['e1', 'e590']);
  });

  it("reads the events of the state's older csam-flagged reports alone, not the job's history back to them", async () => {
    const csam = (id: string) => reportRequest(id, { report: { ...reportRequest(id).report!, csam: true } });
    const first = await enqueuer.enqueue(context, { queueId: 'csam-at', item, request: csam('f0'), reasons: { f0: 'reason f0' }, subject: 'user:u1' });
    for (let i = 1; i < 2_000; i++)
      await enqueuer.enqueue(context, {
        queueId: 'csam-at',
        item,
        request: reportRequest(`f${i}`),
        reasons: { [`f${i}`]: `reason f${i}` },
        subject: 'user:u1',
      });
    await enqueuer.enqueue(context, { queueId: 'csam-at', item, request: csam('f2000'), reasons: { f2000: 'reason f2000' }, subject: 'user:u1' });
    const { state, revision } = await aggregates.stateAt(reviewJobStream(ORG, first.jobId), reviewJobDecider);
    expect([state.csamReports, state.csamAt, state.revision]).toEqual([
      2,
      [
        { reportId: 'f0', revision: 0 },
        { reportId: 'f2000', revision: 2_000 },
      ],
      revision,
    ]);

    // One page of the job's history and the one event that merged f0: not the 2,001 events back to it.
    events.reset();
    const window = await jobReports.newest(ORG, first.jobId, { through: revision, limit: 3, csam: 2, csamAt: state.csamAt });
    expect(events.eventsRead).toBe(250 + 1);
    expect(jobReports.reportsOf(window).map((r) => [r.reportId, r.reason, r.csam])).toEqual([
      ['f0', 'reason f0', true],
      ['f1998', 'reason f1998', false],
      ['f1999', 'reason f1999', false],
      ['f2000', 'reason f2000', true],
    ]);
  });

  it("still reads back to a named job's csam-flagged reports when the job's own do not make up the count", async () => {
    const csam = (id: string) => reportRequest(id, { report: { ...reportRequest(id).report!, csam: true } });
    const old = await enqueuer.enqueue(context, { queueId: 'named-csam', item, request: csam('x0'), reasons: { x0: 'reason x0' }, subject: 'user:u1' });
    for (let i = 1; i < 10; i++)
      await enqueuer.enqueue(context, {
        queueId: 'named-csam',
        item,
        request: reportRequest(`x${i}`),
        reasons: { [`x${i}`]: `reason x${i}` },
        subject: 'user:u1',
      });
    const oldRequests = (await jobReports.fromEvents(ORG, (await aggregates.load(reviewJobStream(ORG, old.jobId), reviewJobDecider)).events)).requests;
    const moved = await enqueuer.enqueue(context, {
      queueId: 'named-csam-to',
      item,
      request: { ...reportRequest('dec-x'), source: 'MRT_JOB', report: null, fromJobId: old.jobId },
      carriedFrom: carriedJob(old.jobId, oldRequests, 0),
    });
    for (let i = 0; i < 300; i++)
      await enqueuer.enqueue(context, {
        queueId: 'named-csam-to',
        item,
        request: reportRequest(`y${i}`),
        reasons: { [`y${i}`]: `reason y${i}` },
        subject: 'user:u1',
      });
    const { state, revision } = await aggregates.stateAt(reviewJobStream(ORG, moved.jobId), reviewJobDecider);
    expect([state.csamReports, state.csamAt]).toEqual([1, []]);
    const window = await jobReports.newest(ORG, moved.jobId, { through: revision, limit: 2, csam: 1, csamAt: state.csamAt });
    expect(jobReports.reportsOf(window).map((r) => [r.reportId, r.reason, r.csam])).toEqual([
      ['x0', 'reason x0', true],
      ['y298', 'reason y298', false],
      ['y299', 'reason y299', false],
    ]);
  });

  it('reads the reasons of reports a move copied from the job they were copied from', async () => {
    const old = await enqueuer.enqueue(context, { queueId: 'copied', item, request: reportRequest('d1'), reasons: { d1: 'reason d1' }, subject: 'user:u1' });
    const moved = await enqueuer.enqueue(context, {
      queueId: 'copied-to',
      item,
      request: { ...reportRequest('dec-2'), source: 'MRT_JOB', report: null, fromJobId: old.jobId },
      carried: [{ ...reportRequest('d1'), fromJobId: old.jobId }],
    });
    const window = await jobReports.newest(ORG, moved.jobId);
    expect(jobReports.reportsOf(window).map((r) => [r.reportId, r.reason, r.fromJobId])).toEqual([['d1', 'reason d1', old.jobId]]);
  });
});
