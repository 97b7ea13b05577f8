import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery, GetLiveCatalogQuery } from '#warden/catalog';
import { type Clock, forbidden, type IdGenerator, invalidInput } from '#warden/kernel';
import { CLOCK, ID_GENERATOR } from '#warden/platform';
import type { EventStore } from '#warden/eventstore';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, EVENT_STORE, READ_STORE } from '#warden/storage';
import { tookAppealedAction } from '../../appealed-deciders.js';
import { checkDecision } from '../../domain/decision-check.js';
import { childSafetyReport, decisionCallbacks, MAX_REPORTS_SENT, reportsToSend, versionSeen } from '../../domain/decision-effects.js';
import { type ReviewJobCommand, reviewJobDecider, type ReviewJobState } from '../../domain/review-job.decider.js';
import { jobNotFound } from '../../domain/review-job.errors.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { ItemVersions } from '../../item-versions.js';
import { JobReports, type JobWindow, type OtherJobs } from '../../job-reports.js';
import { seesChildSafety, sendsToChildSafety } from '../../contracts.js';
import { visibleQueues } from '../../review-queues.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { DecideJobCommand, type DecisionSummary } from './decide-job.command.js';

/**
 * Checks the decision against the catalog (400 before anything is appended), builds what it
 * requests (action callbacks, a child-safety report) from the job as read, and appends it all in
 * one append with the job's expected revision: the decider checks the live lock on that state.
 * A request merged meanwhile makes it read and decide again, so the callbacks are chosen among the
 * newest reports of the state the decision was appended on.
 */
@CommandHandler(DecideJobCommand)
export class DecideJobHandler implements ICommandHandler<DecideJobCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    private readonly jobReports: JobReports,
    private readonly items: ItemVersions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute(command: DecideJobCommand): Promise<DecisionSummary> {
    const stream = reviewJobStream(command.context.orgId, command.jobId);
    let summary: DecisionSummary | undefined;
    // The closed jobs a move copied reports from, read once for every try of this decision.
    const others: OtherJobs = new Map();
    await this.aggregates.handleAfterReading(
      stream,
      reviewJobDecider,
      async (state, revision) => {
        // The reports of the state decided on: its own events' newest (bounded however many were
        // merged), and its newest csam-flagged ones however old (the child-safety report names them), read where the state says they are.
        const csam = Math.min(MAX_REPORTS_SENT, state.csamReports);
        const decided = await this.decision(command, state, () =>
          this.jobReports.newest(command.context.orgId, command.jobId, { through: revision, csam, csamAt: state.csamAt, others }),
        );
        summary = decided.summary;
        return decided.command;
      },
      command.context,
    );
    return summary!;
  }

  /** The Decide command for the job as read, with what it requests, and what the caller is answered. */
  private async decision(
    command: DecideJobCommand,
    state: ReviewJobState,
    readReports: () => Promise<JobWindow>,
  ): Promise<{ command: ReviewJobCommand; summary: DecisionSummary }> {
    const { orgId } = command.context;
    const { moderator, decision } = command;
    // The catalog read once for the whole decision (docs/architecture.md, "Main flows"): the
    // queues the moderator sees, and what the decision is checked against.
    const [{ queue, action: actions, policy: policies, itemType: itemTypes }, settings] = await Promise.all([
      this.queries.execute(new GetLiveCatalogQuery(orgId, ['queue', 'action', 'policy', 'itemType'])),
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'settings')),
    ]);
    const visible = visibleQueues(queue, moderator.permissions);
    if (state.status === 'NONE' || !state.item || !visible.some((q) => q.id === state.queueId)) throw jobNotFound(command.jobId);
    // A job another queue's decision sent to child-safety is that queue's from then on (docs/review.md): not found, not "closed".
    if (sendsToChildSafety(state.decision) && !seesChildSafety(moderator.permissions)) throw jobNotFound(command.jobId);
    if (decision.type === 'SUBMIT_CHILD_SAFETY_REPORT' && !moderator.permissions.includes('VIEW_CHILD_SAFETY_DATA')) {
      throw forbidden('SUBMIT_CHILD_SAFETY_REPORT needs the VIEW_CHILD_SAFETY_DATA permission');
    }
    const checked = checkDecision(decision, {
      actions,
      policies,
      itemTypes,
      settings,
      visibleQueueIds: visible.map((q) => q.id),
      job: { queueId: state.queueId as string, itemTypeId: state.item.typeId, appeal: state.appealId !== null },
    });
    if (!checked.ok) throw invalidInput(...checked.problems);

    const now = this.clock.now().toISOString();
    const decisionId = this.ids.uuid();
    const reason = decision.reason?.trim() ? decision.reason : null;
    const note = decision.note?.trim() ? decision.note : null;
    const actor = { userId: moderator.userId };
    // What the decision is made on (docs/review.md, "Decisions and callbacks": every decision records it): the version the
    // moderator names (the one their job view showed), else the one their claim showed, else
    // (a claim recorded before claims recorded it) the latest version a request named.
    const named = decision.itemVersion ?? null;
    const version = named ?? state.lock?.item?.version ?? state.itemVersion;
    const read = await this.items.at(orgId, state.item, version);
    if (named !== null && read === null)
      throw invalidInput({ title: 'Unknown item version', pointer: '/itemVersion', detail: `the item has no version ${named}` });
    const decidedItem = read ?? { version, data: null, creator: null };
    // The reports are read only for what sends or records them.
    const needsReports = checked.actions.length > 0 || checked.type === 'SUBMIT_CHILD_SAFETY_REPORT';
    // Each action's callback and the child-safety report carry a copy: they share one byte budget.
    const copies = checked.actions.length + (checked.type === 'SUBMIT_CHILD_SAFETY_REPORT' ? 1 : 0);
    const reports = needsReports ? reportsToSend(this.jobReports.reportsOf(await readReports()), copies) : [];
    const callbacks = needsReports
      ? decisionCallbacks({
          orgId,
          decisionId,
          item: state.item,
          actions: checked.actions,
          policies: checked.policies,
          actor: { userId: moderator.userId, email: moderator.email },
          note,
          reason,
          parameters: checked.parameters,
          decidedItem,
          reports,
        })
      : [];
    const report =
      checked.type === 'SUBMIT_CHILD_SAFETY_REPORT'
        ? childSafetyReport({
            orgId,
            decisionId,
            jobId: command.jobId,
            item: state.item,
            itemType: itemTypes.find((t) => t.id === state.item?.typeId),
            decidedItem,
            reports,
            reason,
            note,
            reportedBy: { userId: moderator.userId, email: moderator.email },
            now,
          })
        : null;
    const deliveryIds = callbacks.map((c) => c.deliveryId);
    // An appeal's decision by a moderator who took an appealed action on the item since it opened
    // (after claiming it, say): refused by the decider, as its claim would have been.
    const appealedBefore =
      state.appealId !== null && state.item !== null
        ? await tookAppealedAction(this.readStore, this.events, orgId, command.jobId, { id: state.item.id, typeId: state.item.typeId }, moderator.userId)
        : false;
    return {
      command: {
        type: 'Decide',
        moderatorId: moderator.userId,
        ...(appealedBefore ? { tookAppealedAction: true } : {}),
        lockTokenHash: lockTokenHash(command.lockToken),
        decision: {
          decisionId,
          type: checked.type,
          actor,
          actionIds: checked.actions.map((a) => a.id),
          policies: checked.policies,
          reason,
          note,
          parameters: checked.parameters,
          targetQueueId: checked.type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' ? (decision.targetQueueId ?? null) : null,
          deliveryIds,
          ...(state.appealId !== null ? { appealId: state.appealId } : {}),
          item: versionSeen(decidedItem),
        },
        callbacks,
        childSafetyReport: report,
        now,
      },
      summary: { jobId: command.jobId, decisionId, type: checked.type, deliveryIds },
    };
  }
}
