import type { Projection, ProjectionContext } from '#warden/eventstore';
import { type RecordedEvent, recordedAs } from '#warden/kernel';
import { SECOND_FACTOR_EVENT_TYPES, type SecondFactorEvent } from '../domain/second-factor.events.js';
import { SECOND_FACTOR_POLICIES, SECOND_FACTORS, type SecondFactorDoc, secondFactorDocId, type SecondFactorPolicyDoc } from './second-factor.read-model.js';

/**
 * The catalog's event for the `org.settings` of a configuration file, read by its name and shape
 * only: the catalog depends on identity, so identity learns of the setting through the log.
 */
const ORG_SETTINGS_CHANGED = 'OrgSettingsChanged';

export const SECOND_FACTOR_PROJECTION = 'identity-second-factors';

/** Whether each user has a second factor, and which organizations require one: what enforcement reads. */
export const secondFactorProjection: Projection = {
  name: SECOND_FACTOR_PROJECTION,
  collections: [SECOND_FACTORS, SECOND_FACTOR_POLICIES],
  eventTypes: [...SECOND_FACTOR_EVENT_TYPES, ORG_SETTINGS_CHANGED],
  async apply(recorded: RecordedEvent, ctx: ProjectionContext) {
    if (recorded.type === ORG_SETTINGS_CHANGED) {
      const settings = (recorded.data as { settings?: { requireSecondFactor?: unknown } }).settings;
      const orgId = recorded.metadata.orgId;
      ctx.put(SECOND_FACTOR_POLICIES, orgId, { orgId, required: settings?.requireSecondFactor === true } satisfies SecondFactorPolicyDoc);
      return;
    }
    const event = recordedAs<SecondFactorEvent>(recorded, ...SECOND_FACTOR_EVENT_TYPES);
    if (!event) return;
    const id = secondFactorDocId(event.data.orgId, event.data.userId);
    const base = { orgId: event.data.orgId, userId: event.data.userId };
    switch (event.type) {
      case 'SecondFactorEnrollmentStarted':
        ctx.put(SECOND_FACTORS, id, { ...base, status: 'pending', recoveryCodesRemaining: 0, activeSince: null } satisfies SecondFactorDoc);
        return;
      case 'SecondFactorConfirmed':
        ctx.put(SECOND_FACTORS, id, {
          ...base,
          status: 'active',
          recoveryCodesRemaining: event.data.recoveryCodeHashes.length,
          activeSince: recorded.metadata.occurredAt,
        } satisfies SecondFactorDoc);
        return;
      case 'SecondFactorRecoveryCodeUsed': {
        const doc = await ctx.get<SecondFactorDoc>(SECOND_FACTORS, id);
        if (doc) ctx.put(SECOND_FACTORS, id, { ...doc, recoveryCodesRemaining: event.data.remaining });
        return;
      }
      case 'SecondFactorDisabled':
        ctx.delete(SECOND_FACTORS, id);
        return;
      case 'SecondFactorCodeUsed':
        return;
    }
  },
};
