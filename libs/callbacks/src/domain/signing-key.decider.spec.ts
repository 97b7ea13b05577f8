import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { activeKey, publishedKeys, RETIRE_AFTER_ROTATION_MS, signingKeysDecider } from './signing-key.decider.js';
import type { SigningKeyEvent } from './signing-key.events.js';

const sealed = { kid: 'ring', iv: 'iv', ct: 'ct', tag: 'tag' };
const key = (kid: string, createdAt = '2026-01-01T00:00:00.000Z') => ({ kid, algorithm: 'Ed25519' as const, x: `x-${kid}`, d: sealed, createdAt });
const NOW = '2026-01-02T00:00:00.000Z';

const spec = deciderSpecification(signingKeysDecider);

const created = (kid: string, replaces: string | null = null): SigningKeyEvent => ({
  type: 'SigningKeyCreated',
  data: { ...key(kid), replaces },
});

describe('signing keys decider', () => {
  it('creates the first key on first need, and only once', () => {
    spec
      .given([])
      .when({ type: 'EnsureSigningKey', key: key('k1') })
      .then([created('k1')]);
    spec
      .given([created('k1')])
      .when({ type: 'EnsureSigningKey', key: key('k2') })
      .thenNothing();
  });

  it('rotates: the new key signs, the old one stays published until retired', () => {
    const rotated = spec
      .given([created('k1')])
      .when({ type: 'RotateSigningKey', key: key('k2') })
      .then([created('k2', 'k1')]);
    const state = spec.given([created('k1'), ...rotated]).state;
    expect(activeKey(state)?.kid).toBe('k2');
    expect(publishedKeys(state).map((k) => k.kid)).toEqual(['k2', 'k1']);

    const retired = spec
      .given([created('k1'), ...rotated])
      .when({ type: 'RetireSigningKey', kid: 'k1', at: NOW })
      .then([{ type: 'SigningKeyRetired', data: { kid: 'k1', retiredAt: NOW } }]);
    expect(publishedKeys(spec.given([created('k1'), ...rotated, ...retired]).state).map((k) => k.kid)).toEqual(['k2']);
    spec
      .given([created('k1'), ...rotated, ...retired])
      .when({ type: 'RetireSigningKey', kid: 'k1', at: '2026-01-03T00:00:00.000Z' })
      .thenNothing();
  });

  it('refuses to retire the key in use or an unknown one', () => {
    spec
      .given([created('k1')])
      .when({ type: 'RetireSigningKey', kid: 'k1', at: NOW })
      .thenThrows(/rotate first/);
    spec
      .given([created('k1')])
      .when({ type: 'RetireSigningKey', kid: 'nope', at: NOW })
      .thenThrows(/No signing key nope/);
  });

  it('refuses to retire a key rotated out moments ago: running servers may still sign with it', () => {
    const rotatedAt = '2026-01-02T00:00:00.000Z';
    const events: SigningKeyEvent[] = [created('k1'), { type: 'SigningKeyCreated', data: { ...key('k2', rotatedAt), replaces: 'k1' } }];
    const at = (ms: number) => new Date(Date.parse(rotatedAt) + ms).toISOString();
    spec
      .given(events)
      .when({ type: 'RetireSigningKey', kid: 'k1', at: at(RETIRE_AFTER_ROTATION_MS - 1) })
      .thenThrows(/rotated out moments ago .* retire it from 2026-01-02T00:00:05.000Z on/);
    expect(
      spec
        .given(events)
        .when({ type: 'RetireSigningKey', kid: 'k1', at: at(RETIRE_AFTER_ROTATION_MS) })
        .events(),
    ).toHaveLength(1);
  });

  it('lists rotated keys newest first after the active one', () => {
    const events = [created('k1'), created('k2', 'k1'), created('k3', 'k2')];
    expect(publishedKeys(spec.given(events).state).map((k) => [k.kid, k.status])).toEqual([
      ['k3', 'active'],
      ['k2', 'rotated'],
      ['k1', 'rotated'],
    ]);
  });
});
