import { Logger } from '@nestjs/common';
import { orderingKey, type Projection } from '#warden/eventstore';
import { type ItemVersion, itemVersionOf } from '#warden/ingestion';
import type { RecordedEvent } from '#warden/kernel';
import type { Evaluation } from '../domain/evaluation.events.js';
import type { EvaluationRecorder } from './evaluation-recorder.js';
import type { ItemEvaluator } from './item-evaluator.js';

/**
 * Evaluations under way at once (KeyedLimits.concurrency): 64 for one organization, as before
 * organizations had a limit (a single organization's burst keeps its concurrency, which its
 * appends' group commits need), and 16 more that only the others can take.
 */
export const EVALUATION_HANDLERS = 80;
/** Evaluations of one data subject's items under way at once (KeyedLimits.perGroup). */
export const EVALUATIONS_PER_SUBJECT = 16;
/**
 * Evaluations of one organization under way at once (KeyedLimits.perOrg): an evaluation waits on
 * the organization's own classifiers (HTTP_SIGNAL, up to 30 s each), partial-items endpoint and
 * media, and without a limit a flood of items waiting on a classifier that never answers held
 * every handler, so no other organization's item was evaluated until those ended.
 */
export const EVALUATIONS_PER_ORGANIZATION = 64;

/**
 * Evaluates a recorded submission against the live rules and records the outcome: prepared
 * without writing (item-evaluator.ts), then recorded (evaluation-recorder.ts). The worker's
 * reactor and the legacy endpoint's synchronous path alike.
 */
export async function evaluateSubmission(evaluator: ItemEvaluator, recorder: EvaluationRecorder, version: ItemVersion): Promise<Evaluation | undefined> {
  const prepared = await evaluator.prepareSubmission(version);
  return prepared && (await recorder.record(prepared)).evaluation;
}

/**
 * The worker's reactor: every ItemSubmitted is evaluated against the live rules. Its checkpoint
 * is kept like a projection's; a re-run after a crash finds evaluated versions already recorded.
 * Keyed by the item's stream: one item's versions in order, items and organizations at once (a
 * burst of one organization's capped rule, contending for the cap, holds up no other's items),
 * and grouped by the item's subject, so that users take turns;
 * the evaluations that finish together share one group commit.
 */
export function evaluationReactor(evaluator: ItemEvaluator, recorder: EvaluationRecorder): Projection {
  const logger = new Logger('rules-evaluation');
  const evaluateOne = async (event: RecordedEvent) => {
    const version = itemVersionOf(event);
    // Forgotten personal data: nothing left to evaluate.
    if (!version || version.erased) return;
    // A whole item fetched from the customer (docs/partial-items.md) is data for what asked for
    // it, which evaluates on it; evaluating it again would act twice on one submission.
    if (version.source === 'partial-fetch') return;
    try {
      await evaluateSubmission(evaluator, recorder, version);
    } catch (error) {
      logger.error({ msg: 'evaluation failed', stream: event.streamName, revision: event.revision, error: String(error) });
      throw error;
    }
  };
  return {
    name: 'rules-evaluation',
    reactor: true,
    collections: [],
    eventTypes: ['ItemSubmitted'],
    keyOf: (event) => orderingKey(event, event.streamName),
    // Items take turns by their data subject (the creator, or the item itself when it has none):
    // a user flooding items waits behind their own items, not everyone else (docs/architecture.md,
    // "Reactors by key").
    groupOf: (event) => {
      const subject = event.data['subject'];
      return typeof subject === 'string' ? subject : event.streamName;
    },
    // And a subject's items take at most 16 handlers at once: an item arriving beside a flood
    // shares the event loop with 16 of its evaluations, not 64 (docs/benchmarks.md, "Floods and
    // long histories": the other users' p50 in a flood 1.14–1.35 s before, 0.91–1.03 s after).
    // An organization takes at most 64 of the 80: the rest stay for the others.
    limits: { concurrency: EVALUATION_HANDLERS, perGroup: EVALUATIONS_PER_SUBJECT, perOrg: EVALUATIONS_PER_ORGANIZATION },
    apply: evaluateOne,
  };
}
