import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, newestEvents } from '#warden/eventstore';
import type { RecordedEvent } from '#warden/kernel';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { type MergedReport, mergedReports } from './domain/decision-effects.js';
import {
  fromNewestReports,
  type JobEventsLoader,
  type JobRequests,
  jobReasonsOf,
  jobRequestsFollowing,
  jobRequestsOf,
  mergesRequests,
  reportsMergedBy,
} from './domain/job-requests.js';
import { reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import type { EnqueueRequest, ReportReasons, ReviewJobEvent } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';

/**
 * The histories of other jobs read for a job's requests and reasons (those a move copied reports
 * from, or named), by job id: each read once by the reads that share the map. Those jobs are closed
 * (a move decided them), so their histories are final.
 */
export type OtherJobs = Map<string, Promise<readonly ReviewJobEvent[]>>;

/**
 * A job's reports are listed from its newest this many on (the job view's MAX_REPORTS_SHOWN; a
 * decision chooses what it sends among them): what listing them costs is bounded by this, not by
 * how many reports the job has (docs/review.md, "Decision callbacks").
 */
export const JOB_REPORTS_LISTED = 1_000;
/** Events read back at a time. */
const PAGE = 250;
/**
 * At most this many of one job's events are read for its newest reports: a job whose history is
 * mostly other requests, claims and skips still costs a bounded read.
 */
const MAX_EVENTS_READ = 4 * JOB_REPORTS_LISTED;

export interface NewestOptions {
  /** The revision of the state the reports are listed for (default: the stream's end). */
  readonly through?: number;
  /** How many of the newest reports (default JOB_REPORTS_LISTED). */
  readonly limit?: number;
  /** How many of the newest `csam`-flagged reports besides, however old (a decision: min(MAX_REPORTS_SENT, the state's count)). */
  readonly csam?: number;
  /**
   * Where the job's own newest csam-flagged reports were merged (the state's `csamAt`): the events
   * of those older than the newest reports are read alone, and the history is read back only for
   * those of a job a move named (`carriedFrom`), when the job's own do not make up `csam`. Without
   * it the history is read back to them all.
   */
  readonly csamAt?: ReviewJobState['csamAt'];
  /** Other jobs' histories read so far (a decision's earlier tries): each read once. */
  readonly others?: OtherJobs;
  /**
   * How many reports the job has through `through` (the state's `reportCount`): once that many were
   * read, nothing further back is looked for. A job merged thousands of times by rules and never
   * reported is then read one page back, not MAX_EVENTS_READ events (59 ms a view, every view).
   */
  readonly reportCount?: number;
}

/** The newest part of a job's history (JobReports.newest): its newest reports, every request after them, and their reasons. */
export interface JobWindow extends JobRequests {
  /** The reasons of the reports among `requests` carried from other jobs, by that job's id. */
  readonly carriedReasons: { [jobId: string]: ReportReasons };
  /** The job's own events read, oldest first: the newest of its history, through the revision asked. */
  readonly events: readonly ReviewJobEvent[];
  /** Whether `events` begin with the job's first event. */
  readonly fromStart: boolean;
}

/**
 * Every report merged into a job, with what its reporter wrote. A job's state keeps its request
 * ids only (a merge must not cost more on a mass-reported item): the requests and reasons are read
 * from the job's history, and those of reports carried from the job it was recreated from from
 * that job's, under their reporters' keys. One piece for the decision's callbacks, the job view and
 * a recreated job.
 */
@Injectable()
export class JobReports {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * The job's newest `limit` reports and every request after them, read backwards from `through`
   * (the revision of the state they are listed for; default the stream's end) until that many
   * reports were read, the job's first event, or MAX_EVENTS_READ events; through a job a move named
   * (`carriedFrom`), that job's newest. With `csam`, also the newest that many reports flagged
   * `csam` however far back they are (a decision's child-safety report names them: the state
   * counts them, so the read goes no further than the last of them). A decision and the job view
   * list a job of 100,000 reports at the cost of one of a thousand: the counts are the state's.
   */
  async newest(orgId: string, jobId: string, options: NewestOptions = {}): Promise<JobWindow> {
    const { through, limit = JOB_REPORTS_LISTED, csam = 0, csamAt, others = new Map(), reportCount } = options;
    const flaggedWanted = csamAt ? { count: Math.max(0, csam - csamAt.length), carriedOnly: true } : { count: csam, carriedOnly: false };
    const { events, fromStart, firstRevision } = await this.tail(orgId, jobId, through, Math.min(limit, reportCount ?? limit), flaggedWanted);
    // The jobs a move named, among the events read: their own newest, each read with the same limit.
    const named = new Map<string, JobWindow>();
    for (const event of events) {
      const carriedFrom = mergesRequests(event) ? event.data.carriedFrom : undefined;
      if (carriedFrom && !named.has(carriedFrom.jobId)) {
        named.set(carriedFrom.jobId, await this.newest(orgId, carriedFrom.jobId, { limit, csam: Math.min(csam, carriedFrom.csamReports ?? 0), others }));
      }
    }
    const inWindow = jobRequestsOf(events, undefined, new Map([...named].map(([id, window]) => [id, window.requests])));
    const older = await this.flaggedBefore(orgId, jobId, firstRevision, csamAt ?? []);
    const all = { requests: [...older.requests, ...inWindow.requests], reasons: { ...older.reasons, ...inWindow.reasons } };
    const requests = fromNewestReports(all.requests, limit, csam);
    const carriedReasons: { [jobId: string]: ReportReasons } = {};
    for (const [id, window] of named) Object.assign(carriedReasons, window.carriedReasons, { [id]: window.reasons });
    // Reports copied from a moved job (at most JOB_REQUESTS_COPIED of them: that job was small) have their reasons in its history.
    const load = this.loader(orgId, others);
    const copiedFrom = new Set(requests.flatMap((r) => (r.report && r.fromJobId && !(r.fromJobId in carriedReasons) ? [r.fromJobId] : [])));
    for (const id of copiedFrom) carriedReasons[id] = jobReasonsOf(await load(id));
    return { requests, reasons: all.reasons, carriedReasons, events, fromStart };
  }

  /** The merged reports of a window, oldest first, with their reasons. */
  reportsOf(window: JobWindow): MergedReport[] {
    return mergedReports(window, window.carriedReasons);
  }

  /**
   * The csam-flagged requests of `flagged` merged before `before` (a revision), in merge order, with
   * their reasons: one read of one event each (an event may merge several), not the history between.
   */
  private async flaggedBefore(orgId: string, jobId: string, before: number, flagged: ReviewJobState['csamAt']): Promise<JobRequests> {
    const older = flagged.filter((f) => f.revision < before);
    const wanted = new Set(older.map((f) => f.reportId));
    const revisions = [...new Set(older.map((f) => f.revision))].sort((a, b) => a - b);
    const stream = reviewJobStream(orgId, jobId);
    const read = await Promise.all(revisions.map((revision) => this.events.readStream(stream, { fromRevision: revision, maxCount: 1 })));
    const requests: EnqueueRequest[] = [];
    const reasons: ReportReasons = {};
    for (const [event] of read) {
      const merge = event as unknown as ReviewJobEvent | undefined;
      if (!merge || !mergesRequests(merge)) continue;
      for (const request of [...(merge.data.carried ?? []), merge.data.request]) {
        const reportId = request.report?.reportId;
        if (reportId === undefined || !wanted.has(reportId)) continue;
        requests.push(request);
        if (merge.data.reasons?.[reportId] !== undefined) reasons[reportId] = merge.data.reasons[reportId]!;
      }
    }
    return { requests, reasons };
  }

  /** The job's first event (ReviewJobOpened), however long its history. */
  async opening(orgId: string, jobId: string): Promise<ReviewJobEvent | undefined> {
    return (await this.events.readStream(reviewJobStream(orgId, jobId), { maxCount: 1 }))[0] as unknown as ReviewJobEvent | undefined;
  }

  /**
   * The job's events read backwards, in pages, until `reports` reports (or MAX_EVENTS_READ events)
   * and `csam` flagged ones were read, or the start; returned oldest first.
   */
  private async tail(
    orgId: string,
    jobId: string,
    through: number | undefined,
    reports: number,
    csam: { readonly count: number; readonly carriedOnly: boolean },
  ): Promise<{ events: ReviewJobEvent[]; fromStart: boolean; firstRevision: number }> {
    let merged = 0;
    let flagged = 0;
    let read = 0;
    const enough = (page: readonly RecordedEvent[]) => {
      read += page.length;
      for (const event of page) {
        const job = event as unknown as ReviewJobEvent;
        const counted = reportsMergedBy(job);
        merged += counted.reports;
        flagged += csam.carriedOnly ? (mergesRequests(job) ? (job.data.carriedFrom?.csamReports ?? 0) : 0) : counted.csam;
      }
      return (merged >= reports || read >= MAX_EVENTS_READ) && flagged >= csam.count;
    };
    const newestFirst = await newestEvents(this.events, reviewJobStream(orgId, jobId), {
      count: Number.POSITIVE_INFINITY,
      through,
      pageSize: PAGE,
      until: enough,
    });
    const fromStart = newestFirst.length === 0 || newestFirst.at(-1)!.revision === 0;
    // The revision below which nothing was read: events older than it are outside the window.
    const firstRevision = newestFirst.at(-1)?.revision ?? Number.POSITIVE_INFINITY;
    return { events: newestFirst.reverse() as unknown as ReviewJobEvent[], fromStart, firstRevision };
  }

  /** The requests of a job's events (the first `count`), following the jobs a move named (`carriedFrom`) into their own streams. */
  fromEvents(orgId: string, events: readonly ReviewJobEvent[], count?: number, others: OtherJobs = new Map()): Promise<JobRequests> {
    return jobRequestsFollowing(events, this.loader(orgId, others), count);
  }

  /** Another job's whole history, of this organization: read once into `others`. */
  private loader(orgId: string, others: OtherJobs): JobEventsLoader {
    return (jobId) => {
      let events = others.get(jobId);
      if (!events) {
        events = this.aggregates.load(reviewJobStream(orgId, jobId), reviewJobDecider).then((loaded) => loaded.events);
        // A failed read is not kept: the next try reads again.
        events.catch(() => others.delete(jobId));
        others.set(jobId, events);
      }
      return events;
    };
  }
}
