import type { DecisionActionCallback } from '#warden/callbacks/contracts';
import { AppendOnlySet, type Decider, type Json } from '#warden/kernel';
import { severityOf } from './job-order.js';
import { isRuleDetected } from './job-requests.js';
import { jobClosed, jobLocked, jobNotFound, lockExpired, lockNotHeld } from './review-job.errors.js';
import type {
  CarriedJob,
  ChildSafetyReportRecorded,
  EnqueueRequest,
  EnqueueSource,
  JobItem,
  JobPolicy,
  ReportReasons,
  ReviewJobDecided,
  ReviewJobEvent,
  ItemVersionSeen,
} from './review-job.events.js';

/** Times are ISO strings from the handler's clock: the decider stays pure. */
export type ReviewJobCommand =
  | {
      type: 'Enqueue';
      jobId: string;
      queueId: string;
      generation: number;
      item: JobItem;
      request: EnqueueRequest;
      carried: EnqueueRequest[];
      /** MRT_JOB of a job with many requests: named instead of copied (CarriedJob); null: none. */
      carriedFrom: CarriedJob | null;
      reasons: ReportReasons;
      subject: string | null;
      now: string;
    }
  | {
      type: 'Claim';
      moderatorId: string;
      lockTokenHash: string;
      expiresAt: string;
      now: string;
      item?: ItemVersionSeen;
      /**
       * An appeal job's claim: whether the moderator has decided on the item with one of the
       * appealed actions since the job opened (its `excludedModerators` are those who had before).
       */
      tookAppealedAction?: boolean;
    }
  | { type: 'RenewLock'; moderatorId: string; lockTokenHash: string; expiresAt: string; now: string }
  | { type: 'ReleaseLock'; moderatorId: string; lockTokenHash: string; now: string }
  | { type: 'Skip'; moderatorId: string; lockTokenHash: string; skipUntil: string; now: string }
  | { type: 'ManagerRelease'; managerId: string; now: string }
  | { type: 'Assign'; moderatorId: string; managerId: string; now: string }
  | {
      type: 'Decide';
      moderatorId: string;
      lockTokenHash: string;
      /** As the Claim's: an appeal job's moderator who took an appealed action on the item since it opened. */
      tookAppealedAction?: boolean;
      /** The decision, checked by the handler against the catalog (actions, policies, parameters). */
      decision: Omit<ReviewJobDecided['data'], 'jobId' | 'decidedAt' | 'closeReason'>;
      callbacks: DecisionActionCallback[];
      childSafetyReport: ChildSafetyReportRecorded['data'] | null;
      now: string;
    }
  | { type: 'AutoClose'; decisionId: string; closeReason: 'ITEM_ACTIONED' | 'EXPIRED' | 'USER_ERASED'; now: string };

export interface JobLock {
  readonly moderatorId: string;
  readonly lockTokenHash: string;
  readonly expiresAt: string;
  /** The item version the claim showed; null on claims recorded before it was. */
  readonly item: ItemVersionSeen | null;
}

export interface ReviewJobState {
  readonly status: 'NONE' | 'OPEN' | 'CLOSED';
  readonly jobId: string | null;
  readonly queueId: string | null;
  readonly generation: number;
  readonly item: JobItem | null;
  readonly openedAt: string | null;
  /**
   * The ids of every request merged into the job (but those of a job named by `carriedFrom`: that
   * job recognizes them): what a re-run is recognized by. Only the ids: the
   * requests themselves and the reports' reasons are read from the job's history by what lists them
   * (`jobRequestsOf`), so the state holds no personal data, is snapshotted, and a merge costs the
   * same on a job of 100,000 reports as on a new one (docs/architecture.md, "Streams and what a
   * command costs").
   */
  readonly requestIds: AppendOnlySet;
  /** How many requests were merged (carried ones included): the first this many of the history's are this state's. */
  readonly requestCount: number;
  /** Of those, the reports: what the job view counts without listing them all (JobReports lists the newest). */
  readonly reportCount: number;
  /** Of those, the reports flagged `csam`: a decision reads back to them however old (JobReports.newest). */
  readonly csamReports: number;
  /**
   * The newest CSAM_REPORTS_KEPT of them merged into this job (not those of a job named by
   * `carriedFrom`), each with the revision of the event that merged it: a decision reads those
   * events alone, not the job's history back to them (behind 50,000 later reports, 1.8 s of reads).
   */
  readonly csamAt: ReadonlyArray<{ readonly reportId: string; readonly revision: number }>;
  /**
   * The revision of the last event folded (-1: none). Every event of a job's stream is folded (one
   * of a type the decider does not know is refused: deciderEvents), so the event being folded is at
   * this plus one.
   */
  readonly revision: number;
  /** Every source merged, distinct, in the order first merged (a handful at most). */
  readonly sources: readonly EnqueueSource[];
  /** Every policy the requests named, in the order first named, each at its most severe (bounded by the organization's policies). */
  readonly policies: readonly JobPolicy[];
  /** Whether a rule's request is among them (what a move that names this job says: CarriedJob). */
  readonly ruleDetected: boolean;
  /** The item version the job is about: the latest one a request named. */
  readonly itemVersion: number;
  readonly lock: JobLock | null;
  readonly assignedTo: string | null;
  /** Moderator → until when they are not offered the job again. */
  readonly skips: Readonly<Record<string, string>>;
  readonly decision: {
    readonly decisionId: string;
    readonly type: ReviewJobDecided['data']['type'];
    /** The queue a move decision sent the job's requests to; null for other decisions. */
    readonly targetQueueId: string | null;
  } | null;
  /** An appeal job's appeal id; null: not an appeal job. */
  readonly appealId: string | null;
  /** Moderators an appeal job is not offered to (they took the appealed decision). */
  readonly excludedModerators: readonly string[];
}

export const initialReviewJobState: ReviewJobState = {
  status: 'NONE',
  jobId: null,
  queueId: null,
  generation: 0,
  item: null,
  openedAt: null,
  requestIds: AppendOnlySet.empty(),
  requestCount: 0,
  reportCount: 0,
  csamReports: 0,
  csamAt: [],
  revision: -1,
  sources: [],
  policies: [],
  ruleDetected: false,
  itemVersion: 0,
  lock: null,
  assignedTo: null,
  skips: {},
  decision: null,
  appealId: null,
  excludedModerators: [],
};

/** What a decision sends of a job's csam-flagged reports at most (MAX_REPORTS_SENT): where they are is kept. */
export const CSAM_REPORTS_KEPT = 100;

/** `kept` followed by `added`, the newest `limit`; `kept` itself when nothing is added. */
function withNewest<T>(kept: readonly T[], added: readonly T[], limit: number): readonly T[] {
  return added.length === 0 ? kept : [...kept, ...added].slice(-limit);
}

/** The appeal part of a job's requests: an appeal job has exactly one appeal request. */
function appealOf(requests: readonly EnqueueRequest[]): Pick<ReviewJobState, 'appealId' | 'excludedModerators'> {
  const appeal = requests.find((r) => r.appeal)?.appeal;
  return appeal ? { appealId: appeal.appealId, excludedModerators: appeal.excludedModerators } : { appealId: null, excludedModerators: [] };
}

/**
 * The request part of the state after `requests` were merged, and those of a job named instead of
 * copied (`carriedFrom`: counted, not listed; O(requests), whatever came before).
 */
function withRequests(
  state: ReviewJobState,
  requests: readonly EnqueueRequest[],
  carriedFrom: CarriedJob | undefined,
): Pick<ReviewJobState, 'requestIds' | 'requestCount' | 'reportCount' | 'csamReports' | 'csamAt' | 'sources' | 'policies' | 'ruleDetected' | 'itemVersion'> {
  // A named job's sources and policies come before the requests of the event that names it, as its requests do.
  const sources = [...(carriedFrom?.sources ?? []), ...requests.map((r) => r.source)].filter((s) => !state.sources.includes(s));
  const named = [...(carriedFrom?.policies ?? []), ...requests.flatMap((r) => r.policies)];
  return {
    requestIds: state.requestIds.with(requests.map((r) => r.requestId)),
    requestCount: state.requestCount + (carriedFrom?.requests ?? 0) + requests.length,
    reportCount: state.reportCount + (carriedFrom?.reports ?? 0) + requests.filter((r) => r.report).length,
    csamReports: state.csamReports + (carriedFrom?.csamReports ?? 0) + requests.filter((r) => r.report?.csam).length,
    csamAt: withNewest(
      state.csamAt,
      requests.flatMap((r) => (r.report?.csam ? [{ reportId: r.report.reportId, revision: state.revision + 1 }] : [])),
      CSAM_REPORTS_KEPT,
    ),
    // Unchanged arrays are kept as they are: most merges add no new source or policy.
    sources: sources.length === 0 ? state.sources : [...new Set([...state.sources, ...sources])],
    policies: withPolicies(state.policies, named),
    ruleDetected: state.ruleDetected || carriedFrom?.ruleDetected === true || requests.some(isRuleDetected),
    itemVersion: requests.reduce((version, r) => Math.max(version, r.version), Math.max(state.itemVersion, carriedFrom?.version ?? 0)),
  };
}

/**
 * Each policy once, in the order first named, at the most severe penalty it was named with (a
 * policy's penalty may have been raised while the job collected requests: the queues rank it so,
 * and a move that names the job says so, as carriedJob does). The same array when nothing changes.
 */
function withPolicies(known: readonly JobPolicy[], named: readonly JobPolicy[]): readonly JobPolicy[] {
  let policies: JobPolicy[] | undefined;
  for (const p of named) {
    const list = policies ?? known;
    const at = list.findIndex((k) => k.id === p.id);
    if (at >= 0 && severityOf([p.penalty]) <= severityOf([list[at]!.penalty])) continue;
    policies ??= [...known];
    if (at >= 0) policies[at] = p;
    else policies.push(p);
  }
  return policies ?? known;
}

const isLive = (lock: JobLock | null, now: string): lock is JobLock => lock !== null && lock.expiresAt > now;

/** The caller's lock, live: what renewing, skipping and deciding need. */
function requireLiveLock(state: ReviewJobState, jobId: string, moderatorId: string, lockTokenHash: string, now: string): JobLock {
  const lock = state.lock;
  if (!lock || lock.moderatorId !== moderatorId || lock.lockTokenHash !== lockTokenHash) throw lockNotHeld(jobId);
  if (lock.expiresAt <= now) throw lockExpired(jobId);
  return lock;
}

function requireOpen(state: ReviewJobState, jobId: string): void {
  if (state.status === 'NONE') throw jobNotFound(jobId);
  if (state.status === 'CLOSED') throw jobClosed(jobId);
}

/**
 * One review job (docs/review.md, "Claiming and locks"): the exclusive lock is decided here, on the job's stream
 * with its expected revision, never from a read model. Two moderators can never hold one job:
 * the second claim is decided on a state that holds the first one's live lock.
 */
export const reviewJobDecider: Decider<ReviewJobCommand, ReviewJobState, ReviewJobEvent> = {
  eventTypes: {
    ReviewJobOpened: true,
    ReviewJobMerged: true,
    ReviewJobClaimed: true,
    ReviewJobLockRenewed: true,
    ReviewJobReleased: true,
    ReviewJobSkipped: true,
    ReviewJobAssigned: true,
    ReviewJobDecided: true,
    ChildSafetyReportRecorded: true,
    ActionCallbackRequested: true,
  },
  initialState: initialReviewJobState,
  // Ids, moderators and the lock's digest only: nothing sealed (the reasons stay in the events).
  snapshot: {
    name: 'review_job',
    // 2: evolve counts the requests of a job a move named (carriedFrom). 3: the reports (csam-flagged too), sources and
    // policies counted. 4: whether a rule found one of them, and each policy at its most severe. 5: the newest
    // csam-flagged reports' ids.
    version: 5,
    encode: (state) => ({ ...state, requestIds: [...state.requestIds] }) as unknown as Json,
    decode: (json) => {
      const state = json as unknown as Omit<ReviewJobState, 'requestIds'> & { requestIds: string[] };
      return { ...state, requestIds: AppendOnlySet.of(state.requestIds) };
    },
    // The snapshot holds every id (about 45 bytes each): written a hundredth of the job's size apart
    // (the store's 100 events at least), a mass-reported item writes about 100 × 45 bytes a merge
    // however large it grows, where a snapshot every 100 events wrote O(N) a merge; a cold process
    // reads the snapshot and at most a hundredth of the job's events. On KurrentDB none is written
    // past its append's 1 MiB (about 23,000 ids: SnapshotStore.maxBytes); such a job is read from
    // its last snapshot on, once per process.
    spacing: (state) => Math.floor(state.requestIds.size / 100),
  },

  decide(command, state) {
    const jobId = state.jobId ?? (command.type === 'Enqueue' ? command.jobId : '');
    switch (command.type) {
      case 'Enqueue': {
        // The same request again (a reactor re-run) is already in the job, open or closed.
        if (state.requestIds.has(command.request.requestId)) return [];
        if (state.status === 'CLOSED') throw jobClosed(jobId);
        if (state.status === 'OPEN') {
          return [
            {
              type: 'ReviewJobMerged',
              data: {
                jobId,
                request: command.request,
                ...(command.carried.length > 0 ? { carried: command.carried } : {}),
                ...(command.carriedFrom ? { carriedFrom: command.carriedFrom } : {}),
                mergedAt: command.now,
                reasons: command.reasons,
                subject: command.subject,
              },
            },
          ];
        }
        return [
          {
            type: 'ReviewJobOpened',
            data: {
              jobId: command.jobId,
              queueId: command.queueId,
              generation: command.generation,
              item: command.item,
              request: command.request,
              carried: command.carried,
              ...(command.carriedFrom ? { carriedFrom: command.carriedFrom } : {}),
              openedAt: command.now,
              reasons: command.reasons,
              subject: command.subject,
            },
          },
        ];
      }
      case 'Claim': {
        requireOpen(state, jobId);
        const lock = state.lock;
        if (isLive(lock, command.now) && lock.moderatorId !== command.moderatorId) throw jobLocked(jobId, 'is held by another moderator');
        if (state.assignedTo !== null && state.assignedTo !== command.moderatorId) throw jobLocked(jobId, 'is assigned to another moderator');
        const appealedDecider = state.excludedModerators.includes(command.moderatorId) || command.tookAppealedAction === true;
        if (appealedDecider && state.assignedTo !== command.moderatorId) {
          throw jobLocked(jobId, 'is an appeal of a decision this moderator took');
        }
        const skippedUntil = state.skips[command.moderatorId];
        if (skippedUntil !== undefined && skippedUntil > command.now && state.assignedTo !== command.moderatorId) {
          throw jobLocked(jobId, `was skipped by this moderator; it is offered to them again from ${skippedUntil}`);
        }
        return [
          {
            type: 'ReviewJobClaimed',
            data: {
              jobId,
              moderatorId: command.moderatorId,
              lockTokenHash: command.lockTokenHash,
              claimedAt: command.now,
              expiresAt: command.expiresAt,
              ...(command.item ? { item: command.item } : {}),
            },
          },
        ];
      }
      case 'RenewLock': {
        requireOpen(state, jobId);
        requireLiveLock(state, jobId, command.moderatorId, command.lockTokenHash, command.now);
        return [{ type: 'ReviewJobLockRenewed', data: { jobId, moderatorId: command.moderatorId, renewedAt: command.now, expiresAt: command.expiresAt } }];
      }
      case 'ReleaseLock': {
        requireOpen(state, jobId);
        const lock = state.lock;
        if (!lock || lock.moderatorId !== command.moderatorId || lock.lockTokenHash !== command.lockTokenHash) throw lockNotHeld(jobId);
        return [
          {
            type: 'ReviewJobReleased',
            data: { jobId, moderatorId: command.moderatorId, releasedAt: command.now, releasedBy: command.moderatorId, reason: 'RELEASED' },
          },
        ];
      }
      case 'Skip': {
        requireOpen(state, jobId);
        requireLiveLock(state, jobId, command.moderatorId, command.lockTokenHash, command.now);
        return [{ type: 'ReviewJobSkipped', data: { jobId, moderatorId: command.moderatorId, skippedAt: command.now, skipUntil: command.skipUntil } }];
      }
      case 'ManagerRelease': {
        requireOpen(state, jobId);
        const lock = state.lock;
        // An expired lock or none: nothing to take away, unless the job is reserved for someone.
        if (!isLive(lock, command.now) && state.assignedTo === null) return [];
        return [
          {
            type: 'ReviewJobReleased',
            data: {
              jobId,
              moderatorId: isLive(lock, command.now) ? lock.moderatorId : (state.assignedTo as string),
              releasedAt: command.now,
              releasedBy: command.managerId,
              reason: 'MANAGER_RELEASE',
            },
          },
        ];
      }
      case 'Assign': {
        requireOpen(state, jobId);
        // Already theirs (reserved, or held by them): a second click must not end their lock.
        if (state.assignedTo === command.moderatorId) return [];
        if (isLive(state.lock, command.now) && state.lock.moderatorId === command.moderatorId) return [];
        return [{ type: 'ReviewJobAssigned', data: { jobId, moderatorId: command.moderatorId, assignedBy: command.managerId, assignedAt: command.now } }];
      }
      case 'Decide': {
        requireOpen(state, jobId);
        requireLiveLock(state, jobId, command.moderatorId, command.lockTokenHash, command.now);
        if (command.tookAppealedAction === true && state.assignedTo !== command.moderatorId) {
          throw jobLocked(jobId, 'is an appeal of a decision this moderator took');
        }
        const events: ReviewJobEvent[] = [{ type: 'ReviewJobDecided', data: { ...command.decision, jobId, closeReason: null, decidedAt: command.now } }];
        for (const callback of command.callbacks) events.push({ type: 'ActionCallbackRequested', data: callback });
        if (command.childSafetyReport) events.push({ type: 'ChildSafetyReportRecorded', data: command.childSafetyReport });
        return events;
      }
      case 'AutoClose': {
        if (state.status !== 'OPEN') return [];
        // Age closes only a job nobody holds or was given: the sweep picks pending jobs from the
        // read model, and a claim or an assignment may land between its read and this decision
        // (docs/review.md, "Automatic closing").
        if (command.closeReason === 'EXPIRED' && (isLive(state.lock, command.now) || state.assignedTo !== null)) return [];
        return [
          {
            type: 'ReviewJobDecided',
            data: {
              jobId,
              decisionId: command.decisionId,
              type: 'AUTOMATIC_CLOSE',
              actor: null,
              actionIds: [],
              policies: [],
              reason: null,
              note: null,
              parameters: {},
              targetQueueId: null,
              closeReason: command.closeReason,
              item: null,
              deliveryIds: [],
              decidedAt: command.now,
            },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    const next = evolveJob(state, event);
    // evolveJob returns the state it was given or a new object of its own: the new one takes the revision in place (a fold of 100,000 events copies each state once, not twice).
    if (next === state) return { ...state, revision: state.revision + 1 };
    (next as { revision: number }).revision = state.revision + 1;
    return next;
  },
};

/** The state after one event (evolve adds the revision). */
function evolveJob(state: ReviewJobState, event: ReviewJobEvent): ReviewJobState {
  switch (event.type) {
    case 'ReviewJobOpened': {
      const requests = [...event.data.carried, event.data.request];
      return {
        ...state,
        status: 'OPEN',
        jobId: event.data.jobId,
        queueId: event.data.queueId,
        generation: event.data.generation,
        item: event.data.item,
        openedAt: event.data.openedAt,
        ...withRequests(state, requests, event.data.carriedFrom),
        ...appealOf(requests),
      };
    }
    case 'ReviewJobMerged':
      return {
        ...state,
        ...withRequests(state, [...(event.data.carried ?? []), event.data.request], event.data.carriedFrom),
      };
    case 'ReviewJobClaimed':
      return {
        ...state,
        lock: {
          moderatorId: event.data.moderatorId,
          lockTokenHash: event.data.lockTokenHash,
          expiresAt: event.data.expiresAt,
          item: event.data.item ?? null,
        },
      };
    case 'ReviewJobLockRenewed':
      return state.lock ? { ...state, lock: { ...state.lock, expiresAt: event.data.expiresAt } } : state;
    case 'ReviewJobReleased':
      return { ...state, lock: null, assignedTo: null };
    case 'ReviewJobSkipped':
      // The assignee's skip gives the assignment up: kept, the job would come straight back to
      // them and no one else could take it (docs/review.md, "Claiming and locks").
      return {
        ...state,
        lock: null,
        assignedTo: state.assignedTo === event.data.moderatorId ? null : state.assignedTo,
        skips: { ...state.skips, [event.data.moderatorId]: event.data.skipUntil },
      };
    case 'ReviewJobAssigned':
      return { ...state, lock: null, assignedTo: event.data.moderatorId };
    case 'ReviewJobDecided':
      return {
        ...state,
        status: 'CLOSED',
        lock: null,
        decision: { decisionId: event.data.decisionId, type: event.data.type, targetQueueId: event.data.targetQueueId ?? null },
      };
    default:
      return state;
  }
}
