import { describe, expect, it } from 'vitest';
import { carriedJob, jobReasonsOf, jobRequestsFollowing, jobRequestsOf } from './job-requests.js';
import type { CarriedJob, EnqueueRequest, ReviewJobEvent } from './review-job.events.js';

const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const T0 = '2026-01-01T00:00:00.000Z';
const report = (id: string, fromJobId: string | null = null): EnqueueRequest => ({
  requestId: id,
  source: 'REPORT',
  at: T0,
  version: 1,
  report: { reportId: id, reporter: { kind: 'user', id: `u-${id}`, typeId: 'user' }, reportedAt: T0, hasReason: true, policyId: null, csam: false },
  action: null,
  policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
  routedBy: null,
  fromJobId,
});
const mrt = (id: string, fromJobId: string): EnqueueRequest => ({ ...report(id, fromJobId), source: 'MRT_JOB', report: null, policies: [] });
const opened = (jobId: string, request: EnqueueRequest, extra: { carried?: EnqueueRequest[]; carriedFrom?: CarriedJob } = {}): ReviewJobEvent => ({
  type: 'ReviewJobOpened',
  data: {
    jobId,
    queueId: 'q',
    generation: 0,
    item,
    request,
    carried: extra.carried ?? [],
    ...(extra.carriedFrom ? { carriedFrom: extra.carriedFrom } : {}),
    openedAt: T0,
    reasons: request.report ? { [request.requestId]: `reason ${request.requestId}` } : {},
    subject: null,
  },
});
const merged = (jobId: string, request: EnqueueRequest): ReviewJobEvent => ({
  type: 'ReviewJobMerged',
  data: { jobId, request, mergedAt: T0, reasons: { [request.requestId]: `reason ${request.requestId}` }, subject: null },
});

describe("a job's requests from its history", () => {
  // Job a (three reports), moved to b naming it (CarriedJob), b moved on to c naming b.
  const a = [opened('a', report('r1')), merged('a', report('r2')), merged('a', report('r3'))];
  const aRequests = jobRequestsOf(a).requests;
  const b = [opened('b', mrt('dec-a', 'a'), { carriedFrom: carriedJob('a', aRequests, 1) }), merged('b', report('r4'))];
  const histories: Record<string, ReviewJobEvent[]> = { a, b };
  const load = async (jobId: string) => histories[jobId]!;

  it('lists the requests of a job a move named in their place, each from that job, following a chain of moves', async () => {
    const ofB = await jobRequestsFollowing(b, load);
    expect(ofB.requests.map((r) => [r.requestId, r.fromJobId])).toEqual([
      ['r1', 'a'],
      ['r2', 'a'],
      ['r3', 'a'],
      ['dec-a', 'a'],
      ['r4', null],
    ]);
    // Its own reasons only: the carried reports' are read from their job (JobReports).
    expect(ofB.reasons).toEqual({ r4: 'reason r4' });
    expect((await jobRequestsFollowing(b, load, 2)).requests.map((r) => r.requestId)).toEqual(['r1', 'r2']);

    const bRequests = ofB.requests;
    const c = [opened('c', mrt('dec-b', 'b'), { carriedFrom: carriedJob('b', bRequests, 1) })];
    expect((await jobRequestsFollowing(c, load)).requests.map((r) => [r.requestId, r.fromJobId])).toEqual([
      ['r1', 'a'],
      ['r2', 'a'],
      ['r3', 'a'],
      ['dec-a', 'a'],
      ['r4', 'b'],
      ['dec-b', 'b'],
    ]);
  });

  it("lists a merge naming a moved job (into a queue where the item had an open job) in its place: after the job's earlier requests", async () => {
    const d = [
      opened('d', report('r9')),
      {
        type: 'ReviewJobMerged',
        data: { jobId: 'd', request: mrt('dec-a', 'a'), carriedFrom: carriedJob('a', aRequests, 1), mergedAt: T0, reasons: {}, subject: null },
      },
      merged('d', report('r10')),
    ] satisfies ReviewJobEvent[];
    expect((await jobRequestsFollowing(d, load)).requests.map((r) => r.requestId)).toEqual(['r9', 'r1', 'r2', 'r3', 'dec-a', 'r10']);
    expect((await jobRequestsFollowing(d, load, 4)).requests.map((r) => r.requestId)).toEqual(['r9', 'r1', 'r2', 'r3']);
  });

  it('refuses to list a job that names another without that job read (the requests would be missing silently)', () => {
    expect(() => jobRequestsOf(b)).toThrow(/the requests of job a, which job b carries, were not read/);
    expect(jobReasonsOf(b)).toEqual({ r4: 'reason r4' });
  });

  it('names a moved job by what the queues count: requests, reports (csam-flagged too), sources, policies once each, version, a rule among them', () => {
    const rule: EnqueueRequest = {
      ...report('rule-1'),
      source: 'RULE_EXECUTION',
      report: null,
      action: { id: 'enqueue', rules: [{ id: 'r', name: 'R' }] },
      version: 3,
    };
    expect(carriedJob('a', [...aRequests, rule], 3)).toEqual({
      jobId: 'a',
      requests: 4,
      reports: 3,
      csamReports: 0,
      sources: ['REPORT', 'RULE_EXECUTION'],
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      version: 3,
      ruleDetected: true,
    });
    expect(carriedJob('a', aRequests, 1).ruleDetected).toBe(false);
    const flagged = { ...report('r6'), report: { ...report('r6').report!, csam: true } };
    expect(carriedJob('a', [...aRequests, flagged], 1).csamReports).toBe(1);
    // A policy whose penalty changed while the job collected reports: the most severe counts, as for copied requests.
    const raised = { ...report('r5'), policies: [{ id: 'spam', name: 'Spam', penalty: 'SEVERE' as const }] };
    expect(carriedJob('a', [...aRequests, raised], 1).policies).toEqual([{ id: 'spam', name: 'Spam', penalty: 'SEVERE' }]);
  });
});
