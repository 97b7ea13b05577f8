import type { Keyring, SealedSecret } from '#warden/platform';
import { isSealedSecret } from '#warden/platform';
import type { CallbackDefinition } from '../domain/catalog.model.js';

/**
 * Secrets in catalog events: callback header values and the SSO certificate. They are sealed
 * before an event is appended and opened when the configuration stream is read for an apply,
 * so that idempotency is judged on plaintext (each sealing uses a fresh IV).
 */
type Transform = (value: unknown) => unknown;

function mapSecrets(type: string, data: Record<string, unknown>, transform: Transform): Record<string, unknown> {
  const headers = (callback: CallbackDefinition | null | undefined) =>
    callback ? { ...callback, headers: Object.fromEntries(Object.entries(callback.headers).map(([k, v]) => [k, transform(v)])) } : callback;
  switch (type) {
    case 'ActionDefined': {
      const entity = data['entity'] as { callback: CallbackDefinition | null };
      return { ...data, entity: { ...entity, callback: headers(entity.callback) } };
    }
    case 'AppealSettingsChanged': {
      const appeals = data['appeals'] as { callback: CallbackDefinition | null };
      return { ...data, appeals: { ...appeals, callback: headers(appeals.callback) } };
    }
    case 'SsoSettingsChanged': {
      const sso = data['sso'] as { cert: unknown };
      return { ...data, sso: { ...sso, cert: sso.cert === null ? null : transform(sso.cert) } };
    }
    default:
      return data;
  }
}

export function sealSecrets<E extends { type: string; data: object }>(event: E, keyring: Keyring): E {
  return { ...event, data: mapSecrets(event.type, event.data as Record<string, unknown>, (v) => keyring.seal(String(v))) };
}

export function openSecrets<E extends { type: string; data: object }>(event: E, keyring: Keyring): E {
  return {
    ...event,
    data: mapSecrets(event.type, event.data as Record<string, unknown>, (v) => (isSealedSecret(v) ? keyring.open(v as SealedSecret) : v)),
  };
}
