import type { JsonObject, Upcaster } from '#warden/kernel';
import { DEFAULT_WELLNESS_SETTINGS, type OrgSettings } from './catalog.model.js';

/**
 * `org.settings` as recorded by any release, with what later releases added at its defaults:
 * `requireSecondFactor` and `auditorPersonalData` off and `wellness` as a file without it means. Partial `wellness` blocks
 * are never recorded (the parser fills every field), but are filled field by field all the same.
 */
export function withOrgSettingsDefaults(recorded: Partial<OrgSettings>): OrgSettings {
  return {
    requireDecisionReason: recorded.requireDecisionReason ?? false,
    requirePolicyForDecisions: recorded.requirePolicyForDecisions ?? false,
    requireSecondFactor: recorded.requireSecondFactor ?? false,
    auditorPersonalData: recorded.auditorPersonalData ?? false,
    wellness: { ...DEFAULT_WELLNESS_SETTINGS, ...recorded.wellness },
  };
}

/**
 * OrgSettingsChanged v1 → v2. Issue 15 added `wellness` (the console's protection from graphic
 * media); v1 events may also lack `requireSecondFactor` (added without a version). Both read as
 * their defaults, which is how an organization configured before them behaved.
 */
export const orgSettingsUpcasters: Upcaster[] = [
  {
    eventType: 'OrgSettingsChanged',
    fromVersion: 1,
    upcast(data) {
      const settings = withOrgSettingsDefaults(data['settings'] as Partial<OrgSettings>);
      return { ...data, settings: settings as unknown as JsonObject };
    },
  },
];
