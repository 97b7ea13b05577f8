import type { EventStore } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import { decodeEvaluation, type Evaluation, type ItemEvaluated } from '../domain/evaluation.events.js';

/** An evaluation stream's record as stored (its first event, ItemEvaluated), if any. */
export async function readItemEvaluated(events: Pick<EventStore, 'readStream'>, stream: string): Promise<ItemEvaluated['data'] | undefined> {
  const [first] = await events.readStream(stream, { maxCount: 1 });
  return first && recordedAs<ItemEvaluated>(first, 'ItemEvaluated')?.data;
}

/** The evaluation recorded on an evaluation stream, if any. */
export async function readRecordedEvaluation(events: Pick<EventStore, 'readStream'>, stream: string): Promise<Evaluation | undefined> {
  const recorded = await readItemEvaluated(events, stream);
  return recorded ? decodeEvaluation(recorded) : undefined;
}
