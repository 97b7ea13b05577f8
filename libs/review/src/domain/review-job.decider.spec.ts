import { describe, expect, it } from 'vitest';
import { AppendOnlySet, deciderSpecification, DomainError, foldEvents, type Json } from '#warden/kernel';
import { jobRequestsOf } from './job-requests.js';
import { type ReviewJobCommand, reviewJobDecider, type ReviewJobState } from './review-job.decider.js';
import type { EnqueueRequest, ReviewJobDecided, ReviewJobEvent } from './review-job.events.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const JOB = 'job-1';
const item = { id: 'p1', typeId: 'post', typeName: 'Post' };

const request = (requestId: string, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest => ({
  requestId,
  source: 'REPORT',
  at: T0,
  version: 1,
  report: { reportId: requestId, reporter: { kind: 'user', id: 'u1', typeId: 'user' }, reportedAt: T0, hasReason: true, policyId: null, csam: false },
  action: null,
  policies: [],
  routedBy: null,
  fromJobId: null,
  ...overrides,
});

const enqueue = (requestId: string, now = T0): ReviewJobCommand => ({
  type: 'Enqueue',
  jobId: JOB,
  queueId: 'default',
  generation: 0,
  item,
  request: request(requestId),
  carried: [],
  carriedFrom: null,
  reasons: { [requestId]: 'spam' },
  subject: 'user:u1',
  now,
});

const claim = (
  moderatorId: string,
  now: string,
  hash = `h-${moderatorId}`,
  expiresAt = at(Date.parse(now) / 1000 - Date.parse(T0) / 1000 + 60),
): ReviewJobCommand => ({
  type: 'Claim',
  moderatorId,
  lockTokenHash: hash,
  expiresAt,
  now,
});

const decision = (): Extract<ReviewJobCommand, { type: 'Decide' }>['decision'] => ({
  decisionId: 'dec-1',
  type: 'IGNORE',
  actor: { userId: 'alice' },
  actionIds: [],
  policies: [],
  reason: null,
  note: null,
  parameters: {},
  targetQueueId: null,
  deliveryIds: [],
});

const decide = (moderatorId: string, hash: string, now: string): ReviewJobCommand => ({
  type: 'Decide',
  moderatorId,
  lockTokenHash: hash,
  decision: decision(),
  callbacks: [],
  childSafetyReport: null,
  now,
});

const spec = deciderSpecification(reviewJobDecider);

/** Decides the commands in turn, each on the state the previous ones left; returns every event. */
function history(...commands: ReviewJobCommand[]): ReviewJobEvent[] {
  const events: ReviewJobEvent[] = [];
  for (const command of commands) events.push(...spec.given(events).when(command).events());
  return events;
}

const opened = () => history(enqueue('r1'));
/** Alice holds the job from T0 to T0 + 60 s. */
const claimedByAlice = () => history(enqueue('r1'), claim('alice', T0, 'h-alice', at(60)));
const closed = () => [
  ...claimedByAlice(),
  ...spec
    .given(claimedByAlice())
    .when(decide('alice', 'h-alice', at(10)))
    .events(),
];

describe('review job decider: Enqueue', () => {
  it('opens the job with the request on an empty stream', () => {
    spec
      .given([])
      .when(enqueue('r1'))
      .then([
        {
          type: 'ReviewJobOpened',
          data: {
            jobId: JOB,
            queueId: 'default',
            generation: 0,
            item,
            request: request('r1'),
            carried: [],
            openedAt: T0,
            reasons: { r1: 'spam' },
            subject: 'user:u1',
          },
        },
      ]);
  });

  it('merges a further request into the open job, keeping every request and reason', () => {
    const events = spec
      .given(opened())
      .when(enqueue('r2', at(5)))
      .then([{ type: 'ReviewJobMerged', data: { jobId: JOB, request: request('r2'), mergedAt: at(5), reasons: { r2: 'spam' }, subject: 'user:u1' } }]);
    const history = [...opened(), ...events];
    const state = foldEvents(reviewJobDecider, history);
    expect([...state.requestIds]).toEqual(['r1', 'r2']);
    expect(state).toMatchObject({ requestCount: 2, itemVersion: 1 });
    // The requests and reasons are the history's: the state keeps the ids.
    expect(jobRequestsOf(history).requests.map((r) => r.requestId)).toEqual(['r1', 'r2']);
    expect(jobRequestsOf(history).reasons).toEqual({ r1: 'spam', r2: 'spam' });
    expect(jobRequestsOf(history, 1)).toEqual({ requests: [request('r1')], reasons: { r1: 'spam' } });
  });

  it('a state stays as it was when a later one is folded from it, and a second fold from it (after a conflict) is its own', () => {
    const base = foldEvents(reviewJobDecider, opened());
    const merged = (id: string) => ({
      type: 'ReviewJobMerged' as const,
      data: { jobId: JOB, request: request(id), mergedAt: at(5), reasons: { [id]: `reason ${id}` }, subject: 'user:u1' },
    });
    const first = reviewJobDecider.evolve(base, merged('r2'));
    const second = reviewJobDecider.evolve(base, merged('r3'));
    const ids = (state: ReviewJobState) => [...state.requestIds];
    expect(ids(base)).toEqual(['r1']);
    expect(ids(first)).toEqual(['r1', 'r2']);
    expect(ids(second)).toEqual(['r1', 'r3']);
    expect([base.requestCount, first.requestCount, second.requestCount]).toEqual([1, 2, 2]);
    // The re-run check sees each state's own requests only: r2 is new to the second branch.
    expect(reviewJobDecider.decide(enqueue('r2', at(6)), second).map((e) => e.type)).toEqual(['ReviewJobMerged']);
    expect(reviewJobDecider.decide(enqueue('r2', at(6)), first)).toEqual([]);
    expect(reviewJobDecider.decide(enqueue('r3', at(6)), base).map((e) => e.type)).toEqual(['ReviewJobMerged']);
  });

  it('keeps the latest item version a request named, and is snapshotted without the reasons (they stay in the events)', () => {
    const later = { ...request('r2'), version: 4 };
    const older = { ...request('r3'), version: 2 };
    const history: ReviewJobEvent[] = [
      ...opened(),
      { type: 'ReviewJobMerged', data: { jobId: JOB, request: later, mergedAt: at(5), reasons: { r2: 'private words' }, subject: 'user:u2' } },
      { type: 'ReviewJobMerged', data: { jobId: JOB, request: older, mergedAt: at(6), reasons: {}, subject: null } },
    ];
    const state = foldEvents(reviewJobDecider, history);
    expect(state.itemVersion).toBe(4);
    const policy = reviewJobDecider.snapshot!;
    const stored = JSON.parse(JSON.stringify(policy.encode(state))) as Json;
    expect(JSON.stringify(stored)).not.toContain('private words');
    expect(JSON.stringify(stored)).not.toContain('spam');
    const decoded = policy.decode(stored);
    expect(decoded).toEqual({ ...state, requestIds: decoded.requestIds });
    expect([...decoded.requestIds]).toEqual(['r1', 'r2', 'r3']);
    expect(reviewJobDecider.decide(enqueue('r2', at(7)), decoded)).toEqual([]);
    expect(reviewJobDecider.decide(enqueue('r4', at(7)), decoded).map((e) => e.type)).toEqual(['ReviewJobMerged']);
    // Snapshots a hundredth of the job's size apart (the store's 100 events at least), however large (a store may take less: SnapshotStore.maxBytes).
    const withIds = (n: number) => ({ ...state, requestIds: AppendOnlySet.of(Array.from({ length: n }, (_, i) => `r${i}`)) });
    expect([policy.spacing!(state), policy.spacing!(withIds(5_000)), policy.spacing!(withIds(100_000))]).toEqual([0, 50, 1_000]);
  });

  it('counts the reports and keeps the distinct sources and policies of every request (the job view shows them, listing only the newest)', () => {
    const spam = { id: 'spam', name: 'Spam', penalty: 'LOW' as const };
    const hate = { id: 'hate', name: 'Hate', penalty: 'HIGH' as const };
    const history: ReviewJobEvent[] = [
      ...opened(),
      { type: 'ReviewJobMerged', data: { jobId: JOB, request: request('r2', { policies: [spam] }), mergedAt: at(5), reasons: {}, subject: null } },
      {
        type: 'ReviewJobMerged',
        data: {
          jobId: JOB,
          request: request('a1', { source: 'RULE_EXECUTION', report: null, policies: [hate, { ...spam, name: 'Renamed' }] }),
          mergedAt: at(6),
          reasons: {},
          subject: null,
        },
      },
      {
        type: 'ReviewJobMerged',
        data: {
          jobId: JOB,
          request: request('r3', { policies: [spam], report: { ...request('r3').report!, csam: true } }),
          mergedAt: at(7),
          reasons: {},
          subject: null,
        },
      },
    ];
    const state = foldEvents(reviewJobDecider, history);
    expect(state).toMatchObject({ requestCount: 4, reportCount: 3, csamReports: 1, sources: ['REPORT', 'RULE_EXECUTION'], policies: [spam, hate] });
    // A merge that adds neither keeps the same arrays (nothing copied per merge).
    const before = foldEvents(reviewJobDecider, history.slice(0, 3));
    const after = reviewJobDecider.evolve(before, history[3]!);
    expect(after.sources).toBe(before.sources);
    expect(after.policies).toBe(before.policies);
    // A policy named again at a more severe penalty (raised while the job collected requests) counts at that one, in its place.
    const raised = reviewJobDecider.evolve(state, {
      type: 'ReviewJobMerged',
      data: { jobId: JOB, request: request('r9', { policies: [{ ...spam, penalty: 'SEVERE' }] }), mergedAt: at(8), reasons: {}, subject: null },
    });
    expect(raised.policies).toEqual([{ ...spam, penalty: 'SEVERE' }, hate]);
    // A rule's request without the rules that found it is not "detected by a rule"; one with them is.
    expect(state.ruleDetected).toBe(false);
    const found = request('a2', { source: 'RULE_EXECUTION', report: null, action: { id: 'remove', rules: [{ id: 'spam-rule', name: 'Spam' }] } });
    expect(
      reviewJobDecider.evolve(state, { type: 'ReviewJobMerged', data: { jobId: JOB, request: found, mergedAt: at(8), reasons: {}, subject: null } })
        .ruleDetected,
    ).toBe(true);
  });

  it('decides nothing for a request already in the job (a re-run), open or closed', () => {
    spec.given(opened()).when(enqueue('r1')).thenNothing();
    spec.given(closed()).when(enqueue('r1')).thenNothing();
  });

  it('refuses a new request for a closed job (the enqueuer moves to the next generation)', () => {
    expect(spec.given(closed()).when(enqueue('r2')).thenThrows(DomainError).kind).toBe('job-closed');
  });

  it('counts the requests of a moved job it names (CarriedJob) without taking their ids: that job recognizes them', () => {
    const named = { jobId: 'old', requests: 700, reports: 700, sources: ['REPORT' as const], policies: [], version: 6, ruleDetected: false };
    const events = spec
      .given([])
      .when({ ...enqueue('dec-old'), carriedFrom: named } as ReviewJobCommand)
      .events();
    expect(events[0]).toMatchObject({ type: 'ReviewJobOpened', data: { carriedFrom: named, carried: [] } });
    const state = foldEvents(reviewJobDecider, events);
    expect(state).toMatchObject({ requestCount: 701, itemVersion: 6 });
    expect([...state.requestIds]).toEqual(['dec-old']);
    // Into a queue where the item has an open job: the merge names it, counted before the merge's own request.
    const merge = spec
      .given(opened())
      .when({ ...enqueue('dec-old'), carriedFrom: named } as ReviewJobCommand)
      .events();
    expect(merge[0]).toMatchObject({ type: 'ReviewJobMerged', data: { carriedFrom: named } });
    expect(foldEvents(reviewJobDecider, [...opened(), ...merge])).toMatchObject({ requestCount: 702, itemVersion: 6 });
    // What the view shows of every request is counted too: the named job's reports, sources and policies first.
    const withPolicy = foldEvents(reviewJobDecider, [
      ...spec
        .given([])
        .when({ ...enqueue('dec-old'), carriedFrom: { ...named, policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }] } } as ReviewJobCommand)
        .events(),
    ]);
    expect(withPolicy).toMatchObject({ reportCount: 701, csamReports: 0, sources: ['REPORT'], policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }] });
    const flagged = foldEvents(
      reviewJobDecider,
      spec
        .given([])
        .when({ ...enqueue('dec-old'), carriedFrom: { ...named, csamReports: 3 } } as ReviewJobCommand)
        .events(),
    );
    expect(flagged.csamReports).toBe(3);
    // Without one, the event has none (earlier releases' shape).
    expect(spec.given([]).when(enqueue('r1')).events()[0]!.data).not.toHaveProperty('carriedFrom');
  });

  it('keeps carried requests first when a job is recreated', () => {
    const command = { ...enqueue('dec-0'), carried: [request('r0')] } as ReviewJobCommand;
    const state = foldEvents(reviewJobDecider, spec.given([]).when(command).events());
    expect([...state.requestIds]).toEqual(['r0', 'dec-0']);
  });
});

describe('review job decider: Claim', () => {
  it('locks a free job for the claimer until the given time', () => {
    spec
      .given(opened())
      .when(claim('alice', T0, 'h-alice', at(60)))
      .then([{ type: 'ReviewJobClaimed', data: { jobId: JOB, moderatorId: 'alice', lockTokenHash: 'h-alice', claimedAt: T0, expiresAt: at(60) } }]);
    expect(foldEvents(reviewJobDecider, claimedByAlice()).lock).toEqual({ moderatorId: 'alice', lockTokenHash: 'h-alice', expiresAt: at(60), item: null });
  });

  it('refuses a job held by another moderator with a live lock', () => {
    expect(
      spec
        .given(claimedByAlice())
        .when(claim('bob', at(59)))
        .thenThrows(DomainError).kind,
    ).toBe('job-locked');
  });

  it('lets anyone claim a job whose lock expired; the former holder then holds nothing', () => {
    const events = spec
      .given(claimedByAlice())
      .when(claim('bob', at(60), 'h-bob', at(120)))
      .events();
    expect(events[0]).toMatchObject({ type: 'ReviewJobClaimed', data: { moderatorId: 'bob' } });
    const after = [...claimedByAlice(), ...events];
    expect(
      spec
        .given(after)
        .when(decide('alice', 'h-alice', at(61)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given(after)
        .when(claim('alice', at(61)))
        .thenThrows(DomainError).kind,
    ).toBe('job-locked');
  });

  it('refuses a job assigned to another moderator, and gives it to the assignee', () => {
    const assigned = history(enqueue('r1'), { type: 'Assign', moderatorId: 'carol', managerId: 'boss', now: T0 });
    expect(
      spec
        .given(assigned)
        .when(claim('bob', at(1)))
        .thenThrows(DomainError).kind,
    ).toBe('job-locked');
    expect(
      spec
        .given(assigned)
        .when(claim('carol', at(1)))
        .events()[0],
    ).toMatchObject({ type: 'ReviewJobClaimed', data: { moderatorId: 'carol' } });
  });

  it('refuses a moderator who skipped the job until then, and offers it to them again afterwards', () => {
    const skipped = history(enqueue('r1'), claim('alice', T0, 'h-alice', at(60)), {
      type: 'Skip',
      moderatorId: 'alice',
      lockTokenHash: 'h-alice',
      skipUntil: at(600),
      now: at(1),
    });
    expect(
      spec
        .given(skipped)
        .when(claim('alice', at(599)))
        .thenThrows(DomainError).kind,
    ).toBe('job-locked');
    expect(
      spec
        .given(skipped)
        .when(claim('bob', at(2)))
        .events()[0],
    ).toMatchObject({ data: { moderatorId: 'bob' } });
    expect(
      spec
        .given(skipped)
        .when(claim('alice', at(600)))
        .events()[0],
    ).toMatchObject({ data: { moderatorId: 'alice' } });
  });

  it('refuses a closed job, and a job that was never opened', () => {
    expect(
      spec
        .given(closed())
        .when(claim('bob', at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
    expect(spec.given([]).when(claim('bob', T0)).thenThrows(DomainError).kind).toBe('not-found');
  });
});

describe('review job decider: RenewLock, ReleaseLock, Skip', () => {
  const renew = (hash: string, now: string, moderatorId = 'alice'): ReviewJobCommand => ({
    type: 'RenewLock',
    moderatorId,
    lockTokenHash: hash,
    expiresAt: at(Date.parse(now) / 1000 - Date.parse(T0) / 1000 + 60),
    now,
  });
  const release = (hash: string, now: string, moderatorId = 'alice'): ReviewJobCommand => ({ type: 'ReleaseLock', moderatorId, lockTokenHash: hash, now });
  const skip = (hash: string, now: string, moderatorId = 'alice'): ReviewJobCommand => ({
    type: 'Skip',
    moderatorId,
    lockTokenHash: hash,
    skipUntil: at(600),
    now,
  });

  it('renews a live lock held with the right token', () => {
    const renewed = spec
      .given(claimedByAlice())
      .when(renew('h-alice', at(30)))
      .then([{ type: 'ReviewJobLockRenewed', data: { jobId: JOB, moderatorId: 'alice', renewedAt: at(30), expiresAt: at(90) } }]);
    expect(foldEvents(reviewJobDecider, [...claimedByAlice(), ...renewed]).lock?.expiresAt).toBe(at(90));
  });

  it('answers lock-not-held to a wrong token or another moderator, lock-expired to an expired lock', () => {
    for (const command of [
      renew('h-wrong', at(30)),
      renew('h-alice', at(30), 'bob'),
      skip('h-wrong', at(30)),
      release('h-wrong', at(30)),
      release('h-alice', at(30), 'bob'),
    ]) {
      expect(spec.given(claimedByAlice()).when(command).thenThrows(DomainError).kind, command.type).toBe('lock-not-held');
    }
    expect(
      spec
        .given(claimedByAlice())
        .when(renew('h-alice', at(60)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-expired');
    expect(
      spec
        .given(claimedByAlice())
        .when(skip('h-alice', at(61)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-expired');
    expect(spec.given(opened()).when(renew('h-alice', T0)).thenThrows(DomainError).kind).toBe('lock-not-held');
  });

  it('releases the lock: the job is free again for anyone', () => {
    const events = spec
      .given(claimedByAlice())
      .when(release('h-alice', at(10)))
      .then([{ type: 'ReviewJobReleased', data: { jobId: JOB, moderatorId: 'alice', releasedAt: at(10), releasedBy: 'alice', reason: 'RELEASED' } }]);
    const after = [...claimedByAlice(), ...events];
    expect(foldEvents(reviewJobDecider, after).lock).toBeNull();
    expect(
      spec
        .given(after)
        .when(claim('bob', at(11)))
        .events()[0],
    ).toMatchObject({ data: { moderatorId: 'bob' } });
    expect(
      spec
        .given(after)
        .when(release('h-alice', at(12)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
  });

  it('skips: the lock ends and the skipper is remembered until then', () => {
    const events = spec
      .given(claimedByAlice())
      .when(skip('h-alice', at(10)))
      .then([{ type: 'ReviewJobSkipped', data: { jobId: JOB, moderatorId: 'alice', skippedAt: at(10), skipUntil: at(600) } }]);
    const state = foldEvents(reviewJobDecider, [...claimedByAlice(), ...events]);
    expect(state.lock).toBeNull();
    expect(state.skips).toEqual({ alice: at(600) });
  });

  it('skips a job assigned to the skipper: the assignment ends, others may claim it, the skipper not until the skip ends', () => {
    const assigned = history(enqueue('r1'), { type: 'Assign', moderatorId: 'alice', managerId: 'boss', now: T0 }, claim('alice', at(1), 'h-alice', at(61)));
    const skipped = [
      ...assigned,
      ...spec
        .given(assigned)
        .when(skip('h-alice', at(10)))
        .events(),
    ];
    expect(foldEvents(reviewJobDecider, skipped).assignedTo).toBeNull();
    expect(
      spec
        .given(skipped)
        .when(claim('bob', at(11)))
        .events()[0],
    ).toMatchObject({ type: 'ReviewJobClaimed', data: { moderatorId: 'bob' } });
    expect(
      spec
        .given(skipped)
        .when(claim('alice', at(11)))
        .thenThrows(DomainError).kind,
    ).toBe('job-locked');
  });

  it('refuses all three on a closed job', () => {
    expect(
      spec
        .given(closed())
        .when(renew('h-alice', at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
    expect(
      spec
        .given(closed())
        .when(release('h-alice', at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
    expect(
      spec
        .given(closed())
        .when(skip('h-alice', at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
  });
});

describe('review job decider: ManagerRelease and Assign', () => {
  const managerRelease = (now: string): ReviewJobCommand => ({ type: 'ManagerRelease', managerId: 'boss', now });
  const assign = (moderatorId: string, now: string): ReviewJobCommand => ({ type: 'Assign', moderatorId, managerId: 'boss', now });

  it('takes a live lock away from its holder, who can no longer decide', () => {
    const events = spec
      .given(claimedByAlice())
      .when(managerRelease(at(10)))
      .then([{ type: 'ReviewJobReleased', data: { jobId: JOB, moderatorId: 'alice', releasedAt: at(10), releasedBy: 'boss', reason: 'MANAGER_RELEASE' } }]);
    expect(
      spec
        .given([...claimedByAlice(), ...events])
        .when(decide('alice', 'h-alice', at(11)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
  });

  it('decides nothing for a free job or an expired lock, and ends an assignment', () => {
    spec.given(opened()).when(managerRelease(T0)).thenNothing();
    spec
      .given(claimedByAlice())
      .when(managerRelease(at(60)))
      .thenNothing();
    const assigned = history(enqueue('r1'), assign('carol', T0));
    spec
      .given(assigned)
      .when(managerRelease(at(1)))
      .then([{ type: 'ReviewJobReleased', data: { jobId: JOB, moderatorId: 'carol', releasedAt: at(1), releasedBy: 'boss', reason: 'MANAGER_RELEASE' } }]);
    expect(foldEvents(reviewJobDecider, history(enqueue('r1'), assign('carol', T0), managerRelease(at(1)))).assignedTo).toBeNull();
  });

  it('assigns a job to a moderator, ending any lock held by someone else', () => {
    const events = spec
      .given(claimedByAlice())
      .when(assign('carol', at(10)))
      .then([{ type: 'ReviewJobAssigned', data: { jobId: JOB, moderatorId: 'carol', assignedBy: 'boss', assignedAt: at(10) } }]);
    const after = [...claimedByAlice(), ...events];
    expect(foldEvents(reviewJobDecider, after)).toMatchObject({ lock: null, assignedTo: 'carol' });
    expect(
      spec
        .given(after)
        .when(decide('alice', 'h-alice', at(11)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
  });

  it('assigning the same moderator again decides nothing', () => {
    spec
      .given(history(enqueue('r1'), assign('carol', T0)))
      .when(assign('carol', at(1)))
      .thenNothing();
  });

  it('refuses both on a closed job', () => {
    expect(
      spec
        .given(closed())
        .when(managerRelease(at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
    expect(
      spec
        .given(closed())
        .when(assign('carol', at(20)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
  });
});

describe('review job decider: Decide and AutoClose', () => {
  it('closes the job with the decision, its callbacks and child-safety report, under the live lock', () => {
    const callback = { deliveryId: 'd1' } as unknown as Extract<ReviewJobCommand, { type: 'Decide' }>['callbacks'][number];
    const command = { ...decide('alice', 'h-alice', at(10)), callbacks: [callback] } as ReviewJobCommand;
    const events = spec.given(claimedByAlice()).when(command).events();
    expect(events.map((e) => e.type)).toEqual(['ReviewJobDecided', 'ActionCallbackRequested']);
    expect(events[0]!.data).toEqual({ ...decision(), jobId: JOB, closeReason: null, decidedAt: at(10) });
    expect(foldEvents(reviewJobDecider, [...claimedByAlice(), ...events])).toMatchObject({
      status: 'CLOSED',
      lock: null,
      decision: { decisionId: 'dec-1', type: 'IGNORE' },
    });
  });

  it("refuses without the lock, with another moderator's lock or a wrong token, with an expired lock, and twice", () => {
    expect(
      spec
        .given(opened())
        .when(decide('alice', 'h-alice', T0))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given(claimedByAlice())
        .when(decide('bob', 'h-alice', at(10)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given(claimedByAlice())
        .when(decide('alice', 'h-other', at(10)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given(claimedByAlice())
        .when(decide('alice', 'h-alice', at(60)))
        .thenThrows(DomainError).kind,
    ).toBe('lock-expired');
    expect(
      spec
        .given(closed())
        .when(decide('alice', 'h-alice', at(11)))
        .thenThrows(DomainError).kind,
    ).toBe('job-closed');
  });

  it('closes an open job automatically, once', () => {
    const autoClose: ReviewJobCommand = { type: 'AutoClose', decisionId: 'auto-1', closeReason: 'ITEM_ACTIONED', now: at(5) };
    const events = spec.given(claimedByAlice()).when(autoClose).events();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ type: 'AUTOMATIC_CLOSE', actor: null, closeReason: 'ITEM_ACTIONED', decisionId: 'auto-1', decidedAt: at(5) });
    spec
      .given([...claimedByAlice(), ...events])
      .when(autoClose)
      .thenNothing();
    spec.given(closed()).when(autoClose).thenNothing();
    spec.given([]).when(autoClose).thenNothing();
    const decided = events[0] as ReviewJobDecided;
    expect(decided.data.jobId).toBe(JOB);
  });

  it('leaves a job a moderator holds or was assigned to them when it closes for its age, as it closes a free one', () => {
    const expire = (now: string): ReviewJobCommand => ({ type: 'AutoClose', decisionId: 'auto-age', closeReason: 'EXPIRED', now });
    spec
      .given(claimedByAlice())
      .when(expire(at(5)))
      .thenNothing();
    spec
      .given(history(enqueue('r1'), { type: 'Assign', moderatorId: 'carol', managerId: 'boss', now: T0 }))
      .when(expire(at(5)))
      .thenNothing();
    // The lock ran out: the job is free again, and its age closes it.
    expect(
      spec
        .given(claimedByAlice())
        .when(expire(at(61)))
        .events()[0]!.data,
    ).toMatchObject({ closeReason: 'EXPIRED' });
    expect(
      spec
        .given(opened())
        .when(expire(at(5)))
        .events(),
    ).toHaveLength(1);
  });
});

describe('review job decider: appeal jobs', () => {
  const appealRequest = request('appeal-1', {
    report: null,
    appeal: { appealId: 'appeal-1', actionsTaken: ['remove'], violatingPolicyIds: [], excludedModerators: ['alice'] },
  });
  const openAppeal: ReviewJobCommand = { ...(enqueue('appeal-1') as Extract<ReviewJobCommand, { type: 'Enqueue' }>), request: appealRequest, reasons: {} };
  const appealOpened = () => history(openAppeal);

  it('knows an appeal job by its request, and a job from before appeals (no appeal field) as none', () => {
    expect(spec.given(appealOpened()).state).toMatchObject({ appealId: 'appeal-1', excludedModerators: ['alice'] });
    const { appeal: _none, ...legacy } = request('r1');
    const old: ReviewJobEvent = {
      type: 'ReviewJobOpened',
      data: { jobId: JOB, queueId: 'default', generation: 0, item, request: legacy, carried: [], openedAt: T0, reasons: {}, subject: null },
    };
    expect(spec.given([old]).state).toMatchObject({ appealId: null, excludedModerators: [] });
  });

  it('is never claimed by the moderator who took the appealed decision; anyone else may claim it', () => {
    expect(spec.given(appealOpened()).when(claim('alice', T0)).thenThrows(DomainError).kind).toBe('job-locked');
    expect(spec.given(appealOpened()).when(claim('bob', T0)).events()).toMatchObject([{ type: 'ReviewJobClaimed', data: { moderatorId: 'bob' } }]);
  });

  it('is not claimed by a moderator who decided on the item with an appealed action since it opened (the claim finds that decision)', () => {
    const since = { ...claim('bob', T0), tookAppealedAction: true } as ReviewJobCommand;
    expect(spec.given(appealOpened()).when(since).thenThrows(DomainError).kind).toBe('job-locked');
    const assigned = history(openAppeal, { type: 'Assign', moderatorId: 'bob', managerId: 'boss', now: T0 });
    expect(spec.given(assigned).when(since).events()).toMatchObject([{ type: 'ReviewJobClaimed', data: { moderatorId: 'bob' } }]);
  });

  it('is not decided by its holder once they took an appealed action on the item since claiming it (the handler finds that decision)', () => {
    const held = history(openAppeal, claim('bob', T0, 'h-bob', at(60)));
    const decideAppeal = { ...decide('bob', 'h-bob', at(10)), tookAppealedAction: true } as ReviewJobCommand;
    expect(spec.given(held).when(decideAppeal).thenThrows(DomainError).kind).toBe('job-locked');
    expect(
      spec
        .given(held)
        .when(decide('bob', 'h-bob', at(10)))
        .events(),
    ).toMatchObject([{ type: 'ReviewJobDecided' }]);
  });

  it('is claimed by that moderator when a manager assigned it to them', () => {
    const assigned = history(openAppeal, { type: 'Assign', moderatorId: 'alice', managerId: 'boss', now: T0 });
    expect(spec.given(assigned).when(claim('alice', T0)).events()).toMatchObject([{ type: 'ReviewJobClaimed', data: { moderatorId: 'alice' } }]);
  });

  it('opens once per appeal: the same appeal again decides nothing', () => {
    spec.given(appealOpened()).when(openAppeal).thenNothing();
  });
});
