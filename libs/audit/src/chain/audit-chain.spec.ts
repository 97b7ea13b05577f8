import { describe, expect, it } from 'vitest';
import { canonicalJsonDigest } from '#warden/kernel';
import type { RecordedEvent } from '#warden/kernel';
import { contentDigest, DIGEST_DEPTH, genesisLink, linkOf, storedForm, withCredentialsDigested } from './audit-chain.js';

const sealed = (n: number) => ({ kid: 'k1', iv: `iv${n}`, ct: `ct${n}`, tag: `tag${n}` });
const digestOf = (v: unknown) => ({ $sha256: canonicalJsonDigest(v) });

describe('withCredentialsDigested', () => {
  it('digests named fields, keyring-sealed values at any depth up to DIGEST_DEPTH and inside arrays, and nothing else', () => {
    let deep: unknown = sealed(9);
    for (let i = 1; i < DIGEST_DEPTH; i++) deep = { next: deep };
    let tooDeep: unknown = sealed(10);
    for (let i = 0; i < DIGEST_DEPTH; i++) tooDeep = { next: tooDeep };
    const data = {
      passwordHash: 'scrypt$x',
      keep: { a: 1, list: [1, 'two', { b: null }] },
      headers: [{ name: 'auth', value: sealed(1) }],
      url: sealed(2),
      deep,
      tooDeep,
      tokenHash: null,
    };
    const out = withCredentialsDigested('Anything', data) as Record<string, unknown>;
    let deepOut: unknown = digestOf(sealed(9));
    for (let i = 1; i < DIGEST_DEPTH; i++) deepOut = { next: deepOut };
    expect(out).toEqual({
      passwordHash: digestOf('scrypt$x'),
      keep: data.keep,
      headers: [{ name: 'auth', value: digestOf(sealed(1)) }],
      url: digestOf(sealed(2)),
      deep: deepOut,
      tooDeep,
      tokenHash: null,
    });
    // Untouched branches are shared, and the input is never changed.
    expect(out['keep']).toBe(data.keep);
    expect(data.url).toEqual(sealed(2));
    expect(data.headers[0]!.value).toEqual(sealed(1));
  });

  it('returns the very same data when it carries no credential, and leaves a digest already in place (an export) as it is', () => {
    const plain = { itemId: 'i1', nested: { tags: ['a', 'b'], n: 3 } };
    expect(withCredentialsDigested('ItemSubmitted', plain)).toBe(plain);
    const exported = { hash: digestOf('h'), passwordHash: digestOf('p') };
    expect(withCredentialsDigested('ApiKeyCreated', exported)).toEqual(exported);
    expect(withCredentialsDigested('ApiKeyCreated', { hash: 'h' })).toEqual({ hash: digestOf('h') });
    expect(withCredentialsDigested('OtherEvent', { hash: 'h' })).toEqual({ hash: 'h' });
  });
});

describe('the v2 link', () => {
  it('is the very link the chain has always computed for an event (pinned: a change here breaks every chain recorded)', () => {
    // Credentials named and sealed, non-ASCII and a lone surrogate, -0, a large number, null and
    // undefined members, nested arrays: each written by the canonical text's own branch.
    const event = {
      id: 'e-1',
      type: 'ApiKeyCreated',
      streamName: 'api_key-acme:k1',
      revision: 0,
      position: 42,
      data: {
        hash: 'h',
        name: 'Ключ 🔑 "ci"\n',
        scopes: ['items:write', 'rules:read'],
        limits: { perMinute: 600, burst: -0, ratio: 0.1 },
        webhook: { headers: [{ name: 'x', value: { kid: 'k', iv: 'i', ct: 'c', tag: 't' } }] },
        lone: 'a\ud800b',
        big: 1e21,
        note: null,
        skipped: undefined,
      },
      metadata: { orgId: 'acme', correlationId: 'c-1', causationId: null, actor: 'user:ana', occurredAt: '2026-12-01T07:00:00.000Z', schemaVersion: 2 },
    } as unknown as RecordedEvent;
    // Computed by the release before the chain's hashing was made faster (a000ef39).
    expect(contentDigest(storedForm(event))).toBe('D37YZ1iObiGAJJeQf3d3cIexOmvEo3vHMpsxen-4TVg');
    expect(linkOf(genesisLink('acme'), event)).toBe('8SI9FJfgVuGW4UwQJ3i7jynxqI0vU0TwuHN5DfuZTRE');
  });
});
