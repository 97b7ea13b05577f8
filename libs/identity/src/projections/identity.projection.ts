import { eventProjection } from '#warden/eventstore';
import { IDENTITY_EVENT_TYPES, type ApiKeyEvent, type OrganizationEvent } from '../domain/identity.events.js';
import { API_KEYS, API_KEYS_BY_HASH, type ApiKeyDoc, type ApiKeyHashDoc, ORGANIZATIONS, type OrganizationDoc } from './identity.read-model.js';

export const IDENTITY_PROJECTION = 'identity';

/** Organizations and API keys; keys are also indexed by hash for authentication. */
export const identityProjection = eventProjection<OrganizationEvent | ApiKeyEvent>({
  name: IDENTITY_PROJECTION,
  collections: [ORGANIZATIONS, API_KEYS, API_KEYS_BY_HASH],
  eventTypes: IDENTITY_EVENT_TYPES,
  indexes: [{ collection: API_KEYS, fields: ['orgId'] }],
  async apply(recorded, ctx) {
    const event = recorded;
    const at = recorded.metadata.occurredAt;
    switch (event.type) {
      case 'OrganizationCreated':
        ctx.put(ORGANIZATIONS, event.data.orgId, { id: event.data.orgId, name: event.data.name, createdAt: at } satisfies OrganizationDoc);
        return;
      case 'OrganizationRenamed': {
        const org = await ctx.get<OrganizationDoc>(ORGANIZATIONS, event.data.orgId);
        if (org) ctx.put(ORGANIZATIONS, org.id, { ...org, name: event.data.name });
        return;
      }
      case 'ApiKeyCreated': {
        const d = event.data;
        const doc: ApiKeyDoc = {
          id: d.keyId,
          orgId: d.orgId,
          name: d.name,
          team: d.team,
          prefix: d.prefix,
          hash: d.hash,
          status: 'active',
          createdAt: at,
          deactivatedAt: null,
          rotatedFrom: d.rotatedFrom,
          replacedBy: null,
        };
        ctx.put(API_KEYS, d.keyId, doc);
        ctx.put(API_KEYS_BY_HASH, d.hash, { keyId: d.keyId, orgId: d.orgId, team: d.team, status: 'active' } satisfies ApiKeyHashDoc);
        return;
      }
      case 'ApiKeyRotated':
      case 'ApiKeyRevoked': {
        const status = event.type === 'ApiKeyRotated' ? 'rotated' : 'revoked';
        const key = await ctx.get<ApiKeyDoc>(API_KEYS, event.data.keyId);
        if (!key) return;
        ctx.put(API_KEYS, key.id, {
          ...key,
          status,
          deactivatedAt: key.deactivatedAt ?? at,
          replacedBy: event.type === 'ApiKeyRotated' ? event.data.replacedBy : key.replacedBy,
        });
        ctx.put(API_KEYS_BY_HASH, key.hash, { keyId: key.id, orgId: key.orgId, team: key.team, status } satisfies ApiKeyHashDoc);
        return;
      }
    }
  },
});
