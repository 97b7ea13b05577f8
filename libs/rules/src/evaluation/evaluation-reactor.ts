import { Logger } from '@nestjs/common';
import type { Projection } from '../../../eventstore/src/index.js';
import type { RecordedEvent } from '../../../kernel/src/index.js';
import type { ItemEvaluator } from './item-evaluator.js';

/** Items evaluated at once; their appends share group commits. */
const CONCURRENCY = 64;

/**
 * The worker's reactor: every ItemSubmitted is evaluated against the live rules. Its checkpoint
 * is kept like a projection's; a re-run after a crash finds evaluated versions already recorded.
 */
export function evaluationReactor(evaluator: ItemEvaluator): Projection {
  const logger = new Logger('rules-evaluation');
  const evaluateOne = async (event: RecordedEvent) => {
    // Forgotten personal data: nothing left to evaluate.
    if (event.metadata.personalDataRedacted) return;
    try {
      await evaluator.evaluateSubmission(event);
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
    apply: evaluateOne,
    async applyBatch(events) {
      let next = 0;
      const worker = async () => {
        while (next < events.length) await evaluateOne(events[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, events.length) }, worker));
    },
  };
}
