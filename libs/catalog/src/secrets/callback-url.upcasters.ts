import type { JsonObject, Upcaster } from '#warden/kernel';
import { type Keyring, withSealedUrl } from '#warden/storage';

type Callback = { url: string; sealedUrl?: unknown } | null | undefined;

const sealed = (callback: Callback, keyring: Keyring) => (callback ? withSealedUrl(callback, keyring) : callback);

/**
 * ActionDefined and AppealSettingsChanged v1 → v2. Releases up to 0.1.0 kept a callback's URL in
 * plaintext (a `?token=…` with it); v2 keeps the URL without user info or query string, and the
 * whole URL sealed. Old events get the same shape on read, sealed then, so no read model built
 * from them holds the URL in plaintext. Sealing needs the keyring: these upcasters are made per
 * process, around its keyring. The old events themselves keep their bytes (docs/operations.md).
 */
export function callbackUrlUpcasters(keyring: Keyring): Upcaster[] {
  return [
    {
      eventType: 'ActionDefined',
      fromVersion: 1,
      upcast(data) {
        const entity = data['entity'] as JsonObject & { callback?: Callback };
        return { ...data, entity: { ...entity, callback: sealed(entity.callback, keyring) } } as JsonObject;
      },
    },
    {
      eventType: 'AppealSettingsChanged',
      fromVersion: 1,
      upcast(data) {
        const appeals = data['appeals'] as JsonObject & { callback?: Callback };
        return { ...data, appeals: { ...appeals, callback: sealed(appeals.callback, keyring) } } as JsonObject;
      },
    },
  ];
}
