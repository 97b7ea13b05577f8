import { Logger } from '@nestjs/common';
import type { Projection } from '#warden/eventstore';
import type { RecordedEvent } from '#warden/kernel';
import type { ItemEvaluator, PreparedEvaluation } from './item-evaluator.js';

/** Items evaluated at once; their appends share group commits. */
const CONCURRENCY = 64;

/**
 * The worker's reactor: every ItemSubmitted is evaluated against the live rules. Its checkpoint
 * is kept like a projection's; a re-run after a crash finds evaluated versions already recorded.
 */
export function evaluationReactor(evaluator: ItemEvaluator): Projection {
  const logger = new Logger('rules-evaluation');
  const guarded = async <T>(event: RecordedEvent, task: () => Promise<T>): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      logger.error({ msg: 'evaluation failed', stream: event.streamName, revision: event.revision, error: String(error) });
      throw error;
    }
  };
  // Forgotten personal data: nothing left to evaluate.
  const evaluateOne = async (event: RecordedEvent) => {
    if (!event.metadata.personalDataRedacted) await guarded(event, () => evaluator.evaluateSubmission(event));
  };
  return {
    name: 'rules-evaluation',
    reactor: true,
    collections: [],
    eventTypes: ['ItemSubmitted'],
    apply: evaluateOne,
    async applyBatch(events) {
      // Evaluate the batch first, then record every evaluation in the same tick: the appends
      // share one commit instead of one each.
      const prepared: Array<PreparedEvaluation | undefined> = new Array(events.length);
      let next = 0;
      const worker = async () => {
        while (next < events.length) {
          const i = next++;
          const event = events[i]!;
          if (event.metadata.personalDataRedacted) continue;
          prepared[i] = await guarded(event, () => evaluator.prepareSubmission(event));
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, events.length) }, worker));
      await Promise.all(
        prepared.map((p, i) => (p ? guarded(events[i]!, () => evaluator.record(p)) : undefined)),
      );
    },
  };
}
