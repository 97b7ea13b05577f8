import type { JsonObject, Upcaster } from '#warden/kernel';
import { type Keyring, withSealedUrl } from '#warden/storage';

type Destination = { url: string; sealedUrl?: unknown } | null | undefined;

/**
 * CallbackDeliveryRequested and CallbackRedeliveryRequested v1 → v2: releases up to 0.1.0 copied
 * the callback URL into the delivery in plaintext; v2 holds it as the catalog does (the URL
 * without user info or query string, and the whole URL sealed). Old events are sealed on read,
 * around this process's keyring, so the dispatcher has one shape to open and the deliveries read
 * model never holds a plaintext URL.
 */
export function destinationUrlUpcasters(keyring: Keyring): Upcaster[] {
  const upcast = (data: JsonObject): JsonObject => {
    const destination = data['destination'] as Destination;
    return destination ? ({ ...data, destination: withSealedUrl(destination, keyring) } as unknown as JsonObject) : data;
  };
  return [
    { eventType: 'CallbackDeliveryRequested', fromVersion: 1, upcast },
    { eventType: 'CallbackRedeliveryRequested', fromVersion: 1, upcast },
  ];
}
