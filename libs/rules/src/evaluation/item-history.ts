import type { EventStore } from '../../../eventstore/src/index.js';
import type { RecordedEvent } from '../../../kernel/src/index.js';

/**
 * The latest submitted version of every item of an organization (optionally since a time),
 * read from the log: retroaction and backtests run over what was actually submitted.
 */
export async function latestSubmissions(events: EventStore, orgId: string, since?: Date): Promise<RecordedEvent[]> {
  const latest = new Map<string, RecordedEvent>();
  let after = 0;
  for (;;) {
    const batch = await events.readAll({ after, maxCount: 1000, eventTypes: ['ItemSubmitted'] });
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.position;
    for (const e of batch) {
      if (e.type !== 'ItemSubmitted' || e.metadata.orgId !== orgId || e.metadata.personalDataRedacted) continue;
      if (since && Date.parse(e.metadata.occurredAt) < since.getTime()) continue;
      latest.set(e.streamName, e);
    }
  }
  return [...latest.values()];
}

export interface RunReport {
  readonly ruleId: string;
  readonly scanned: number;
  readonly matched: number;
  readonly unknown: number;
  readonly actionsPublished: number;
  readonly milliseconds: number;
  /** Up to 20 matched items, for a first look. */
  readonly examples: Array<{ id: string; typeId: string; version: number }>;
}
