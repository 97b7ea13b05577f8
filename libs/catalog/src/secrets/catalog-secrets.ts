import { isSealedSecret, type Keyring, openUrl, type SealedSecret, sealUrl } from '#warden/storage';
import type { CallbackDefinition } from '../domain/catalog.model.js';

/**
 * Secrets in catalog events: callback URLs and header values, the partial-items endpoint's URL
 * and header values, the Transparency Database's endpoint and token, and the SSO certificate. They are
 * sealed before an event is appended and opened when the configuration stream is read for an
 * apply, so that idempotency is judged on plaintext (each sealing uses a fresh IV).
 */
interface Transforms {
  readonly callback: (callback: CallbackDefinition) => CallbackDefinition;
  readonly value: (value: unknown) => unknown;
}

function mapSecrets(type: string, data: Record<string, unknown>, transform: Transforms): Record<string, unknown> {
  const callback = (c: CallbackDefinition | null | undefined) => (c ? transform.callback(c) : c);
  switch (type) {
    case 'ActionDefined': {
      const entity = data['entity'] as { callback: CallbackDefinition | null };
      return { ...data, entity: { ...entity, callback: callback(entity.callback) } };
    }
    case 'AppealSettingsChanged': {
      const appeals = data['appeals'] as { callback: CallbackDefinition | null };
      return { ...data, appeals: { ...appeals, callback: callback(appeals.callback) } };
    }
    case 'PartialItemsSettingsChanged': {
      // The endpoint's URL and headers are sealed as a callback's are (its URL may carry a token).
      const partial = data['partialItems'] as (CallbackDefinition & { [key: string]: unknown }) | null;
      if (partial === null) return data;
      const { url, headers, sealedUrl, ...rest } = partial;
      return {
        ...data,
        partialItems: { ...rest, ...transform.callback({ url, headers, ...(sealedUrl === undefined ? {} : { sealedUrl }) } as CallbackDefinition) },
      };
    }
    case 'TransparencySettingsChanged': {
      // The Transparency Database's endpoint and API token (an authorization header) are sealed as a callback's are.
      const transparency = data['transparency'] as { submission?: CallbackDefinition } | null;
      if (!transparency?.submission) return data;
      return { ...data, transparency: { ...transparency, submission: transform.callback(transparency.submission) } };
    }
    case 'SsoSettingsChanged': {
      const sso = data['sso'] as { cert: unknown };
      return { ...data, sso: { ...sso, cert: sso.cert === null ? null : transform.value(sso.cert) } };
    }
    default:
      return data;
  }
}

const mapHeaders = (headers: CallbackDefinition['headers'], value: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, value(v)])) as CallbackDefinition['headers'];

export function sealSecrets<E extends { type: string; data: object }>(event: E, keyring: Keyring): E {
  const value = (v: unknown) => keyring.seal(String(v));
  return {
    ...event,
    data: mapSecrets(event.type, event.data as Record<string, unknown>, {
      callback: (c) => ({ ...c, ...sealUrl(c.url, keyring), headers: mapHeaders(c.headers, value) }),
      value,
    }),
  };
}

export function openSecrets<E extends { type: string; data: object }>(event: E, keyring: Keyring): E {
  const value = (v: unknown) => (isSealedSecret(v) ? keyring.open(v as SealedSecret) : v);
  return {
    ...event,
    data: mapSecrets(event.type, event.data as Record<string, unknown>, {
      callback: (c) => {
        const { sealedUrl: _sealed, ...plain } = c;
        return { ...plain, url: openUrl(c, keyring), headers: mapHeaders(c.headers, value) };
      },
      value,
    }),
  };
}
