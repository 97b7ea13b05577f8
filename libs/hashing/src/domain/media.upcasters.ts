import { type JsonObject, redactUrl, type Upcaster } from '#warden/kernel';

/**
 * MediaHashed v1 → v2. Releases up to 0.1.0 recorded the whole item under evaluation in
 * `data.item` (its data, creator and subject, unsealed: personal data in plaintext); v2 keeps the
 * item's identity only. Readers never see the old fields again. The bytes stay in old logs:
 * docs/operations.md says how to purge them.
 */
const mediaHashedV1: Upcaster = {
  eventType: 'MediaHashed',
  fromVersion: 1,
  upcast(data) {
    const item = (data['item'] ?? {}) as JsonObject;
    return { ...data, item: { id: item['id'] ?? null, typeId: item['typeId'] ?? null } };
  },
};

/**
 * MediaHashed v2 → v3. Up to 0.1.0 the result kept the whole media URL, a pre-signed URL's
 * signature with it; v3 keeps it without user info or query string (docs/hashing.md).
 */
const mediaHashedV2: Upcaster = {
  eventType: 'MediaHashed',
  fromVersion: 2,
  upcast(data) {
    const result = (data['result'] ?? {}) as JsonObject;
    return typeof result['url'] === 'string' ? { ...data, result: { ...result, url: redactUrl(result['url']) } } : data;
  },
};

/**
 * MediaHashed v3 → v4. v4 names the item's subject and seals its result (URL path and hashes)
 * under the subject's key, so that a GDPR deletion erases it; v3 events had neither: their result
 * reads as it was written (unsealed, so no deletion reaches its bytes: docs/gdpr.md), and their
 * subject as null (unknown).
 */
const mediaHashedV3: Upcaster = {
  eventType: 'MediaHashed',
  fromVersion: 3,
  upcast(data) {
    return { ...data, subject: null };
  },
};

export const MEDIA_UPCASTERS: readonly Upcaster[] = [mediaHashedV1, mediaHashedV2, mediaHashedV3];
