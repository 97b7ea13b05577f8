import type { RuleDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type ItemVersion, itemVersionOf } from '#warden/ingestion';
import { type ItemToEvaluate, submittedItem } from './item-evaluator.js';

/**
 * The latest submitted version of every item of an organization (optionally since a time),
 * read from the log: retroaction and backtests run over what was actually submitted.
 */
export async function latestSubmissions(events: EventStore, orgId: string, since?: Date): Promise<ItemVersion[]> {
  const latest = new Map<string, ItemVersion>();
  let after = 0;
  for (;;) {
    const batch = await events.readAll({ after, maxCount: 1000, eventTypes: ['ItemSubmitted'] });
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.position;
    for (const e of batch) {
      if (e.metadata.orgId !== orgId) continue;
      const version = itemVersionOf(e);
      if (!version || version.erased) continue;
      if (since && Date.parse(e.metadata.occurredAt) < since.getTime()) continue;
      latest.set(e.streamName, version);
    }
  }
  return [...latest.values()];
}

/**
 * Evaluates one rule over the latest submitted versions of the organization's items of the rule's
 * types, and reports what matched (retroaction and backtests share this loop).
 */
export async function runOverHistory(
  events: EventStore,
  orgId: string,
  rule: RuleDefinition,
  since: Date | undefined,
  evaluate: (
    item: ItemToEvaluate & { source: ItemVersion['source'] },
    version: number,
    causationId: string,
  ) => Promise<{ rules: Array<{ outcome: string }>; actions: unknown[] } | undefined>,
): Promise<RunReport> {
  const started = Date.now();
  const items = (await latestSubmissions(events, orgId, since)).filter((v) => rule.itemTypeIds.length === 0 || rule.itemTypeIds.includes(v.typeId));
  let matched = 0;
  let unknown = 0;
  let actionsPublished = 0;
  const examples: RunReport['examples'] = [];
  for (const version of items) {
    const result = await evaluate(submittedItem(version), version.version, version.eventId);
    const outcome = result?.rules[0]?.outcome;
    if (outcome === 'unknown') unknown++;
    if (outcome !== 'passed') continue;
    matched++;
    actionsPublished += result!.actions.length;
    if (examples.length < 20) examples.push({ id: version.itemId, typeId: version.typeId, version: version.version });
  }
  return { ruleId: rule.id, scanned: items.length, matched, unknown, actionsPublished, milliseconds: Date.now() - started, examples };
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
