import type { EventStore } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import { decodeEvaluation, type Evaluation, type ItemEvaluated } from '../domain/evaluation.events.js';

/** The evaluation recorded on an evaluation stream (its first event, ItemEvaluated), if any. */
export async function readRecordedEvaluation(events: Pick<EventStore, 'readStream'>, stream: string): Promise<Evaluation | undefined> {
  const [first] = await events.readStream(stream, { maxCount: 1 });
  const recorded = first && recordedAs<ItemEvaluated>(first, 'ItemEvaluated');
  return recorded ? decodeEvaluation(recorded.data) : undefined;
}
