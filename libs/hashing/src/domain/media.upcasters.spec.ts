import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { MEDIA_UPCASTERS } from './media.upcasters.js';

/**
 * A MediaHashed in the shape release 0.1.0 stored (its fields as found in a log of the hashing e2e
 * suite; the values here are made up).
 */
const storedV1: RecordedEvent = {
  id: '5b0c6a3e-0b7c-5d2e-9a51-3f1f0e2d8a11',
  type: 'MediaHashed',
  streamName: 'item_media-acme:post:p%2D1:0:9b1c3f2a6d0e4b7c8a5f1e2d3c4b5a69',
  revision: 0,
  position: 42,
  data: {
    item: {
      id: 'p-1',
      typeId: 'post',
      data: { text: 'my cat', images: ['http://127.0.0.1:40123/cat.jpg'], author: { id: 'u-1', typeId: 'user' } },
      creator: { id: 'u-1', typeId: 'user' },
      subject: 'user:u-1',
      source: 'items',
    },
    version: 0,
    result: { ok: true, url: 'http://127.0.0.1:40123/cat.jpg', pdq: 'f'.repeat(64), quality: 100, md5: 'a'.repeat(32), sha256: 'b'.repeat(64) },
  },
  metadata: { orgId: 'acme', correlationId: 'r', causationId: 'c', actor: 'rules-engine', occurredAt: '2026-11-01T00:00:00.000Z', schemaVersion: 1 },
};

describe('MediaHashed upcasters', () => {
  const registry = new UpcasterRegistry();
  registry.register(...MEDIA_UPCASTERS);

  it("reads a stored v1 event without the item's data, creator or subject, and keeps the result", () => {
    const read = registry.upcast(storedV1);
    expect(read.metadata.schemaVersion).toBe(4);
    expect(read.data['item']).toEqual({ id: 'p-1', typeId: 'post' });
    expect(read.data['result']).toEqual(storedV1.data['result']);
    expect(JSON.stringify(read.data)).not.toContain('my cat');
  });

  it("reads a stored event's pre-signed media URL without its query string", () => {
    const signed = 'https://bucket.s3.example/cat.jpg?X-Amz-Credential=AKIA&X-Amz-Signature=5f3c9e';
    const stored = { ...storedV1, data: { ...storedV1.data, result: { ok: false, url: signed, reason: 'http-403' } } };
    const read = registry.upcast(stored);
    expect(read.data['result']).toEqual({ ok: false, url: 'https://bucket.s3.example/cat.jpg?…', reason: 'http-403' });
    expect(JSON.stringify(read.data)).not.toContain('5f3c9e');
    const v2 = { ...stored, metadata: { ...stored.metadata, schemaVersion: 2 } };
    expect(registry.upcast(v2).data['result']).toEqual(read.data['result']);
  });

  it('reads a stored v3 event as it was written, with no subject (its result was not sealed)', () => {
    const result = { ok: false, url: 'https://bucket.s3.example/u-1/cat.jpg?…', reason: 'http-403' };
    const v3 = { ...storedV1, data: { item: { id: 'p-1', typeId: 'post' }, version: 0, result }, metadata: { ...storedV1.metadata, schemaVersion: 3 } };
    expect(registry.upcast(v3).data).toEqual({ item: { id: 'p-1', typeId: 'post' }, version: 0, subject: null, result });
  });

  it('makes v4 the version new MediaHashed events are written at', () => {
    expect(registry.currentVersion('MediaHashed')).toBe(4);
  });
});
