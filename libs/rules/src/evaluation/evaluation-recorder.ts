import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import type { Evaluation } from '../domain/evaluation.events.js';
import { evaluationEventId, itemEvaluationDecider, type RecordEvaluation } from '../domain/item-evaluation.decider.js';
import { completeEvaluation } from '../domain/rule-results.js';
import { CHAINED_RUN, ContentKeyReader } from './content-key-reader.js';
import { DailyActionCap } from './daily-action-cap.js';
import { type PreparedEvaluation, runKey } from './item-evaluator.js';
import { MEDIA_HASHER, type MediaHasher } from './media-hasher.js';
import { readRecordedEvaluation } from './recorded-evaluation.js';

/**
 * Writes what an evaluation prepared by the ItemEvaluator decided, in this order: the media
 * hashed for it (one MediaHashed per URL not recorded yet), the daily caps of its passed rules
 * (decided on the write side, through the aggregate store: the rule's day stream, its state cached
 * and its burst of counts appended together; docs/architecture.md, "Write side"), then the
 * outcome and the published actions in one append to the version's evaluation stream, with ids
 * derived from it: evaluating the same version twice (a reactor re-run, the legacy sync path
 * racing the worker) records it once. The content key the caps and the actions' ids derive from
 * is read only when one of them needs it.
 */
@Injectable()
export class EvaluationRecorder {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly caps: DailyActionCap,
    private readonly contentKeys: ContentKeyReader,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Optional() @Inject(MEDIA_HASHER) private readonly media?: MediaHasher,
  ) {}

  /**
   * Records a prepared evaluation once; returns the record and whether this call recorded it (and
   * so published its actions). A version found evaluated while preparing already holds the record;
   * one recorded meanwhile by someone else makes the decider record nothing, and that record is
   * read back.
   */
  async record(prepared: PreparedEvaluation): Promise<{ evaluation: Evaluation; recordedNow: boolean }> {
    if (prepared.kind === 'recorded') return { evaluation: prepared.evaluation, recordedNow: false };
    const { stream, context, item, draft } = prepared;
    await this.recordMedia(prepared);
    const content = this.contentKeys.lazy(context.orgId, item, draft.version);
    // Only the live run's evaluation of a submitted version keeps the key for the next version (the
    // run that sees every submitted version: not a retroaction's or a backtest's, and not a version
    // fetched from the customer, which the live run never evaluates).
    const chains = runKey(prepared.options) === CHAINED_RUN && item.source !== 'partial-fetch';
    const capped = new Set<string>();
    for (const cap of draft.caps) {
      const allowed = await this.caps.take(context, { id: cap.ruleId, maxDailyActions: cap.maxDailyActions }, item, draft.version, await content());
      if (!allowed) capped.add(cap.ruleId);
    }
    const evaluation = completeEvaluation(draft, capped);
    const key = evaluation.actions.length > 0 || (chains && draft.version > 0) ? await content() : '';
    const command: RecordEvaluation = {
      type: 'RecordEvaluation',
      orgId: context.orgId,
      run: runKey(prepared.options),
      // A published action's ids derive from it; and every later version the run sees records it,
      // so that the next version's key starts from it (ContentKeyReader). A first version's key is
      // its digest at 0: digested only when something needs it (a large item's digest is not free).
      content: key,
      ...(chains && key !== '' ? { chainedContent: key } : {}),
      evaluation,
      creator: item.creator,
      actions: draft.actions,
    };
    const { events } = await this.aggregates.handle(stream, itemEvaluationDecider, command, context, {
      eventIds: (_e, i) => evaluationEventId(stream, i),
      // One stream per item version: evaluated once, so almost always new.
      newStream: true,
    });
    if (events.length > 0) return { evaluation, recordedNow: true };
    return { evaluation: (await readRecordedEvaluation(this.events, stream)) ?? evaluation, recordedNow: false };
  }

  /**
   * Records only the media an evaluation hashed (a backtest: its outcome is reported, never
   * recorded, but the images it fetched are not fetched again by the next run).
   */
  async recordMedia(prepared: PreparedEvaluation): Promise<void> {
    if (prepared.kind === 'recorded' || prepared.media.length === 0 || !this.media) return;
    await this.media.recordItemMedia(prepared.context, prepared.item, prepared.draft.version, prepared.media);
  }
}
