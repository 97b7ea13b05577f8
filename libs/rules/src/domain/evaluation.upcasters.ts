import type { JsonObject, Upcaster } from '#warden/kernel';
import { evaluationV1ToV2, type ItemEvaluated } from './evaluation.events.js';

/**
 * RuleDailyActionCounted v1 → v2. Up to v1 the daily cap counted item versions; v2 events name
 * the content counted. A v1 event counted a version, whose content it does not know: null.
 */
const ruleDailyActionCountedV1: Upcaster = {
  eventType: 'RuleDailyActionCounted',
  fromVersion: 1,
  upcast(data) {
    return { ...data, content: null };
  },
};

/**
 * ItemEvaluated v1 → v2. v1 kept what each condition saw (a field's value, a signal's quote)
 * inline with its outcome; v2 keeps it apart, in `conditionValues`, sealed as personal data. A v1
 * event's values stay as they were stored; this only gives them v2's shape.
 */
const itemEvaluatedV1: Upcaster = {
  eventType: 'ItemEvaluated',
  fromVersion: 1,
  upcast(data) {
    return evaluationV1ToV2(data as unknown as ItemEvaluated['data']) as unknown as JsonObject;
  },
};

export const RULES_UPCASTERS: readonly Upcaster[] = [ruleDailyActionCountedV1, itemEvaluatedV1];
