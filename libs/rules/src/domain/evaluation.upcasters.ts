import type { Upcaster } from '#warden/kernel';

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

export const RULES_UPCASTERS: readonly Upcaster[] = [ruleDailyActionCountedV1];
