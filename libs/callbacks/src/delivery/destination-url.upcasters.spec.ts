import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { Keyring, openUrl } from '#warden/storage';
import type { CallbackDestination } from '../domain/callback-delivery.events.js';
import { destinationUrlUpcasters } from './destination-url.upcasters.js';

const keyring = new Keyring([randomBytes(32)]);
const registry = new UpcasterRegistry();
registry.register(...destinationUrlUpcasters(keyring));

/** A delivery's events as release 0.1.0 stored them: the destination URL in plaintext. */
const storedV1 = (type: string, destination: unknown): RecordedEvent => ({
  id: 'e-1',
  type,
  streamName: 'callback_delivery-acme:d%2D1',
  revision: 0,
  position: 7,
  data: { deliveryId: 'd-1', destination } as RecordedEvent['data'],
  metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'callbacks', occurredAt: '2026-11-01T00:00:00.000Z', schemaVersion: 1 },
});

describe('delivery destination upcasters (CallbackDeliveryRequested, CallbackRedeliveryRequested v1 → v2)', () => {
  const header = keyring.seal('Bearer t0k');

  it.each(['CallbackDeliveryRequested', 'CallbackRedeliveryRequested'])('read a stored %s with its URL sealed, opening to the URL it was sent to', (type) => {
    const read = registry.upcast(storedV1(type, { url: 'http://127.0.0.1:38945/hooks/remove?token=s3cret', headers: { Authorization: header } }));
    const destination = read.data['destination'] as unknown as CallbackDestination;
    expect(read.metadata.schemaVersion).toBe(2);
    expect(JSON.stringify(read.data)).not.toContain('s3cret');
    expect(destination.url).toBe('http://127.0.0.1:38945/hooks/remove?…');
    expect(openUrl(destination, keyring)).toBe('http://127.0.0.1:38945/hooks/remove?token=s3cret');
    expect(destination.headers).toEqual({ Authorization: header });
  });

  it('leave a delivery without a destination alone', () => {
    expect(registry.upcast(storedV1('CallbackRedeliveryRequested', null)).data['destination']).toBeNull();
  });
});
