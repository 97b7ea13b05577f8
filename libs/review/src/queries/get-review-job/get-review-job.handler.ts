import { Inject, Optional } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type ItemTypeDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { USER_SCORE, USER_STRIKES, type UserScore, type UserStrikes } from '#warden/enforcement';
import { reportOf, type ReportSubmitted } from '#warden/ingestion';
import { ListEvaluationsQuery } from '#warden/rules';
import { AggregateStore, EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import { jobNotFound } from '../../domain/review-job.errors.js';
import type { EnqueueRequest, ReviewJobDecided, ReviewJobEvent } from '../../domain/review-job.events.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { seesChildSafety, sendsToChildSafety } from '../../contracts.js';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { recordedDecision } from '../../job-decision.js';
import { JobReports } from '../../job-reports.js';
import { ItemVersions } from '../../item-versions.js';
import { contentDigestOf } from '../../domain/decision-effects.js';
import { ReviewQueues } from '../../review-queues.js';
import { GetReviewJobQuery } from './get-review-job.query.js';
import { JOB_APPEALS, type JobAppeals } from '../../job-appeals.port.js';
import { actionsPartOf } from './job-actions-part.js';
import { appealPartOf } from './job-appeal-part.js';
import {
  byReportedAt,
  ContextBudget,
  contextItems,
  reportsShown,
  explanationsOf,
  fieldsWithRoles,
  hashMatchesOf,
  jobStateOf,
  relatedRefs,
} from './review-job-view.parts.js';
import type { EvaluationView, ItemRefView, PastJobView, ReviewJobView, StoredItemView } from './review-job.view.js';

/** Bounds that keep one view a handful of reads whatever the job's history. */
const MAX_REPORT_CONTEXTS = 50;
/** Report events read at once for their context: a few, so that the budget stops the reads early. */
const CONTEXT_READS_AT_ONCE = 10;
const MAX_RELATED_ITEMS = 20;
const MAX_PAST_JOBS = 20;
/** The item's evaluations in which rules fired, besides those that sent it here (newest). */
const MAX_FIRED_EVALUATIONS = 10;
/**
 * The item versions whose evaluations are looked up for the rule requests (the newest): a post
 * edited thousands of times, each edit's rule merging a request into its one open job, costs the
 * view what 20 edits do, not one look-up and an evaluation read per edit.
 */
export const MAX_REQUESTED_VERSIONS = 20;

/**
 * The job from its stream (authoritative: state, lock, requests, reasons, decision), the item and
 * its creator from their item streams, reports' context from their report streams, explanations
 * from the rules' evaluations, and earlier jobs from the review_jobs read model. Every read is by
 * key or by an indexed prefix; the independent ones run together.
 */
@QueryHandler(GetReviewJobQuery)
export class GetReviewJobHandler implements IQueryHandler<GetReviewJobQuery> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queues: ReviewQueues,
    private readonly jobReports: JobReports,
    private readonly items: ItemVersions,
    private readonly queries: QueryBus,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    // Ports of other modules (docs/architecture.md, "Ports"); each optional, its part of the view empty without it.
    @Optional() @Inject(USER_STRIKES) private readonly strikes?: UserStrikes,
    @Optional() @Inject(USER_SCORE) private readonly scores?: UserScore,
    @Optional() @Inject(JOB_APPEALS) private readonly appeals?: JobAppeals,
  ) {}

  async execute(query: GetReviewJobQuery): Promise<ReviewJobView> {
    const { orgId, jobId } = query;
    // Job streams are per organization: another organization's job id reads as no stream here.
    const { state, revision } = await this.aggregates.stateAt(reviewJobStream(orgId, jobId), reviewJobDecider);
    if (state.status === 'NONE' || !state.item || !state.queueId || !state.openedAt) throw jobNotFound(jobId);
    const visible = await this.queues.visible(orgId, query.viewer.permissions);
    if (!visible.some((q) => q.id === state.queueId)) throw jobNotFound(jobId);
    // A job of another queue that a decision sent to child-safety is that queue's from then on: not found without the permission, as Investigate leaves it out.
    const showsChildSafety = seesChildSafety(query.viewer.permissions);
    if (!showsChildSafety && sendsToChildSafety(state.decision)) throw jobNotFound(jobId);
    const visibleIds = new Set(visible.map((q) => q.id));

    const item = state.item;
    // The job's newest reports and the requests after them, at the state's revision: a mass-reported
    // job's view costs what one of a thousand reports does (the counts are the state's). The
    // opening requests (a rule's, an appeal's, those a move copied) are listed with them however long ago they were.
    const window = await this.jobReports.newest(orgId, jobId, { through: revision, reportCount: state.reportCount });
    const opened = window.fromStart ? window.events[0] : await this.jobReports.opening(orgId, jobId);
    const requests = withOpening(opened, window.requests);
    const version = state.itemVersion;
    // The viewer's own live lock pins the version its claim showed: a decision without a version
    // is made on that one, so the view shows it, never a newer version's data under its number.
    const lock = state.lock;
    const pinned = lock && lock.moderatorId === query.viewer.userId && lock.expiresAt > this.clock.now().toISOString() ? (lock.item?.version ?? null) : null;
    const ruleRequests = requests.filter((r) => r.source === 'RULE_EXECUTION' && r.action);
    // Earlier jobs are the read model's: it has the viewer's own writes once caught up.
    await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
    const [types, latest, claimed, reports, contexts, evaluations, itemJobs] = await Promise.all([
      this.itemTypes(orgId),
      this.items.latest(orgId, item),
      pinned === null ? Promise.resolve(null) : this.items.at(orgId, item, pinned),
      Promise.resolve(this.jobReports.reportsOf(window).sort(byReportedAt)),
      this.reportContexts(orgId, requests),
      this.evaluations(orgId, item, ruleRequests),
      this.pastJobs(orgId, item, jobId, visibleIds, showsChildSafety),
    ]);
    const type = types.get(item.typeId);
    const shown = claimed ?? latest;
    const data = shown?.data ?? null;
    const creator = shown?.creator ?? null;
    const [creatorUser, standing, related, creatorJobs, bankNames, appeal, actions] = await Promise.all([
      creator ? this.storedItem(orgId, creator, types) : Promise.resolve(null),
      creator ? this.standing(orgId, creator) : Promise.resolve({ userScore: null, strikeCount: null }),
      data && type
        ? Promise.all(relatedRefs(data, type, MAX_RELATED_ITEMS).map(async (ref) => ({ ref, stored: await this.storedItem(orgId, ref, types) })))
        : Promise.resolve([]),
      creator ? this.pastJobs(orgId, creator, jobId, visibleIds, showsChildSafety) : Promise.resolve([]),
      evaluations.some((e) => e.rules.some((r) => r.conditions.some((c) => c.detail?.['bankId'] !== undefined)))
        ? this.bankNames(orgId)
        : Promise.resolve(new Map<string, string>()),
      state.appealId
        ? appealPartOf(
            { queries: this.queries, events: this.events, readStore: this.readStore, appeals: this.appeals, strikes: this.strikes },
            orgId,
            item,
            requests,
            query.viewer.permissions,
          )
        : Promise.resolve(null),
      actionsPartOf(this.queries, orgId, item, creator, query.viewer.permissions),
    ]);
    const now = this.clock.now().toISOString();
    const jobState = jobStateOf(state, now);
    // A decision comes after every merge: within the events read.
    const decided = window.events.find((e): e is ReviewJobEvent & ReviewJobDecided => e.type === 'ReviewJobDecided');
    const sources = [...state.sources];

    return {
      jobId,
      queueId: state.queueId,
      state: jobState,
      item: {
        ...item,
        version: shown?.version ?? version,
        requestedVersion: version,
        latestVersion: latest?.version ?? null,
        data,
        creator,
        typeVersion: shown?.typeVersion ?? null,
        typeSchemaVariant: shown?.typeSchemaVariant ?? null,
        versionSource: shown?.source ?? null,
        contentDigest: shown ? contentDigestOf(shown) : null,
      },
      itemType: type ? { id: type.id, name: type.name, kind: type.kind, fields: fieldsWithRoles(type) } : null,
      source: opened?.type === 'ReviewJobOpened' ? opened.data.request.source : (sources[0] ?? 'REPORT'),
      sources,
      reportCount: state.reportCount,
      openedAt: state.openedAt,
      policies: [...state.policies],
      reports: reportsShown(reports),
      contextComplete: contexts.complete,
      thread: contextItems(
        contexts.contexts.map((c) => ({ items: c.thread ?? [], reported: c.reportedInThread ?? [] })),
        types,
      ),
      additionalItems: contextItems(
        contexts.contexts.map((c) => ({ items: c.additionalItems ?? [], reported: [] })),
        types,
      ),
      creator: creator ? { item: creator, user: creatorUser, ...standing } : null,
      evaluations,
      hashMatches: hashMatchesOf(
        evaluations.flatMap((e) => e.rules),
        bankNames,
      ),
      history: { item: itemJobs, creator: creatorJobs },
      actions,
      relatedItems: related.flatMap(({ ref, stored }) => (stored ? [{ ...stored, field: ref.field }] : [])),
      lock: jobState === 'LOCKED' && state.lock ? { moderatorId: state.lock.moderatorId, expiresAt: state.lock.expiresAt } : null,
      assignedTo: state.assignedTo,
      decision: decided
        ? { decisionId: decided.data.decisionId, type: decided.data.type, actorId: decided.data.actor?.userId ?? null, decidedAt: decided.data.decidedAt }
        : null,
      appeal,
    };
  }

  /** The creator's live score and strike count, as enforcement answers them (USER_SCORE, USER_STRIKES); null where no module does. */
  private async standing(orgId: string, user: ItemRefView): Promise<{ userScore: number | null; strikeCount: number | null }> {
    const [userScore, strikeCount] = await Promise.all([
      this.scores ? this.scores.score(orgId, user) : null,
      this.strikes ? this.strikes.count(orgId, user) : null,
    ]);
    return { userScore, strikeCount };
  }

  private async itemTypes(orgId: string): Promise<Map<string, ItemTypeDefinition>> {
    const types = await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType'));
    return new Map(types.map((t) => [t.id, t]));
  }

  private async bankNames(orgId: string): Promise<Map<string, string>> {
    const banks = await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'hashBank'));
    return new Map(banks.map((b) => [b.id, b.name]));
  }

  private async storedItem(orgId: string, ref: ItemRefView, types: ReadonlyMap<string, ItemTypeDefinition>): Promise<StoredItemView | null> {
    const latest = await this.items.latest(orgId, ref);
    if (!latest) return null;
    return {
      id: ref.id,
      typeId: ref.typeId,
      typeName: types.get(ref.typeId)?.name ?? null,
      version: latest.version,
      typeVersion: latest.typeVersion ?? null,
      data: latest.data,
    };
  }

  /**
   * The reports' thread and context items, from their ReportSubmitted events: newest report first,
   * a few read at a time, until MAX_REPORT_CONTEXTS reports or the view's ContextBudget; `complete`
   * is false when an older report's context was left out.
   */
  private async reportContexts(
    orgId: string,
    requests: readonly EnqueueRequest[],
  ): Promise<{ contexts: Array<Partial<ReportSubmitted['data']>>; complete: boolean }> {
    const ids = requests.flatMap((r) => (r.report ? [r.report.reportId] : []));
    const newestFirst = ids.slice(-MAX_REPORT_CONTEXTS).reverse();
    const budget = new ContextBudget();
    const contexts: Array<Partial<ReportSubmitted['data']>> = [];
    for (let at = 0; at < newestFirst.length; at += CONTEXT_READS_AT_ONCE) {
      const read = await Promise.all(newestFirst.slice(at, at + CONTEXT_READS_AT_ONCE).map((id) => reportOf(this.events, orgId, id)));
      for (const context of read) {
        if (!context) continue;
        if (!budget.admit(context)) return { contexts: contexts.sort(byReportedAt), complete: false };
        contexts.push(context);
      }
    }
    return { contexts: contexts.sort(byReportedAt), complete: ids.length <= MAX_REPORT_CONTEXTS };
  }

  /**
   * First, for each rule request on one of the newest MAX_REQUESTED_VERSIONS versions the rule
   * requests name, that version's evaluation that published its action, with the explanations of
   * the rules that did; then the item's other evaluations in which rules fired
   * (a report-made job of an item a rule already actioned shows what the rule did), newest first.
   * A backtest publishes nothing and shows nothing here.
   */
  private async evaluations(orgId: string, item: ItemRefView, ruleRequests: readonly EnqueueRequest[]): Promise<EvaluationView[]> {
    // Only the requests of the newest versions they name: one look-up per version.
    const versions = newestVersions(ruleRequests, MAX_REQUESTED_VERSIONS);
    const requests = ruleRequests.filter((r) => versions.includes(r.version));
    const [byVersion, recent] = await Promise.all([
      Promise.all(versions.map(async (v) => [v, await this.queries.execute(new ListEvaluationsQuery(orgId, item.typeId, item.id, v))] as const)).then(
        (entries) => new Map(entries),
      ),
      this.queries.execute(new ListEvaluationsQuery(orgId, item.typeId, item.id)),
    ]);
    const views: EvaluationView[] = [];
    const same = (a: { version: number; environment: string; evaluatedAt: string }) => (b: { version: number; environment: string; evaluatedAt: string }) =>
      a.version === b.version && a.environment === b.environment && a.evaluatedAt === b.evaluatedAt;
    for (const request of requests) {
      const action = request.action!;
      const evaluation = byVersion.get(request.version)?.find((e) => e.actions.some((a) => a.id === action.id));
      if (!evaluation) continue;
      if (views.some((v) => same(v)(evaluation) && v.actionId === action.id)) continue;
      views.push({
        version: evaluation.version,
        environment: evaluation.environment,
        evaluatedAt: evaluation.evaluatedAt,
        actionId: action.id,
        actions: evaluation.actions.map((a) => a.id),
        rules: explanationsOf(
          evaluation,
          action.rules.map((r) => r.id),
        ),
      });
    }
    const fired = recent
      .filter((e) => e.environment !== 'BACKTEST' && e.rules.some((r) => r.outcome === 'passed') && !views.some(same(e)))
      .sort((a, b) => b.evaluatedAt.localeCompare(a.evaluatedAt))
      .slice(0, MAX_FIRED_EVALUATIONS);
    for (const evaluation of fired) {
      views.push({
        version: evaluation.version,
        environment: evaluation.environment,
        evaluatedAt: evaluation.evaluatedAt,
        actionId: null,
        actions: evaluation.actions.map((a) => a.id),
        rules: explanationsOf(evaluation, []),
      });
    }
    return views;
  }

  /**
   * Other jobs of an item in the queues the viewer may see (a child-safety job is not shown to
   * exist without the permission), any state, newest first, from the read model's
   * (orgId, itemTypeId, itemId) index.
   */
  private async pastJobs(
    orgId: string,
    item: ItemRefView,
    exceptJobId: string,
    visibleQueues: ReadonlySet<string>,
    seesChildSafety: boolean,
  ): Promise<PastJobView[]> {
    const docs = await this.readStore.find<ReviewJobDoc>(
      REVIEW_JOBS,
      { orgId, itemTypeId: item.typeId, itemId: item.id },
      { sort: [{ field: 'openedAt', direction: 'desc' }], limit: MAX_PAST_JOBS + 1 },
    );
    // Without VIEW_CHILD_SAFETY_DATA, not a job a decision sent to child-safety: a move's target is read from its stream (a move is rare).
    const sent = seesChildSafety
      ? new Set<string>()
      : new Set(
          (
            await Promise.all(
              docs.map(async (d) =>
                d.decision?.type === 'SUBMIT_CHILD_SAFETY_REPORT' ||
                (d.decision?.type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' &&
                  sendsToChildSafety((await recordedDecision(this.events, orgId, d.jobId)) ?? null))
                  ? [d.jobId]
                  : [],
              ),
            )
          ).flat(),
        );
    return docs
      .filter((d) => d.jobId !== exceptJobId && visibleQueues.has(d.queueId) && !sent.has(d.jobId))
      .slice(0, MAX_PAST_JOBS)
      .map((d) => ({
        jobId: d.jobId,
        queueId: d.queueId,
        item: { id: d.itemId, typeId: d.itemTypeId },
        state: d.state,
        openedAt: d.openedAt,
        reportCount: d.reportCount,
        decision: d.decision ? { type: d.decision.type, actorId: d.decision.actorId, decidedAt: d.decision.decidedAt } : null,
      }));
  }
}

/**
 * The requests listed in the view: the opening event's (its own and those a move copied into it:
 * a rule's, an appeal's), then the window's newest, each once.
 */
function withOpening(opened: ReviewJobEvent | undefined, newest: readonly EnqueueRequest[]): EnqueueRequest[] {
  if (opened?.type !== 'ReviewJobOpened') return [...newest];
  const listed = new Set(newest.map((r) => r.requestId));
  const first = [...opened.data.carried, opened.data.request].filter((r) => !listed.has(r.requestId));
  return [...first, ...newest];
}

/** The newest `limit` distinct item versions the requests name, newest first. */
export function newestVersions(requests: readonly EnqueueRequest[], limit: number): number[] {
  return [...new Set(requests.map((r) => r.version))].sort((a, b) => b - a).slice(0, limit);
}
