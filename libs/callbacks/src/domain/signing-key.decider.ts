import { conflict, type Decider, notFound } from '#warden/kernel';
import type { SigningKeyCreated, SigningKeyEvent } from './signing-key.events.js';

export type NewSigningKey = Omit<SigningKeyCreated['data'], 'replaces'>;

export type SigningKeyCommand =
  /** Creates the organization's first key, unless it has an active one already. */
  { type: 'EnsureSigningKey'; key: NewSigningKey } | { type: 'RotateSigningKey'; key: NewSigningKey } | { type: 'RetireSigningKey'; kid: string; at: string };

export type SigningKeyStatus = 'active' | 'rotated' | 'retired';

export interface SigningKeyRecord {
  kid: string;
  x: string;
  d: SigningKeyCreated['data']['d'];
  status: SigningKeyStatus;
  createdAt: string;
}

/** Keys in creation order; at most one is active: the newest one not retired by a rotation. */
export interface SigningKeysState {
  keys: SigningKeyRecord[];
}

export const activeKey = (state: SigningKeysState) => state.keys.find((k) => k.status === 'active');

/** Keys a receiver may still see signatures from: the active one and rotated ones not yet retired. */
export const publishedKeys = (state: SigningKeysState) => [
  ...state.keys.filter((k) => k.status === 'active'),
  ...state.keys.filter((k) => k.status === 'rotated').reverse(),
];

/** Every key the organization ever had: the published ones, then the retired ones, most recently created first. */
export const everyKey = (state: SigningKeysState) => [...publishedKeys(state), ...state.keys.filter((k) => k.status === 'retired').reverse()];

/**
 * How long after a rotation its replaced key may be retired. A running server keeps signing with
 * the key it loaded for up to a second (SigningKeys' cache), so a key retired at once could still
 * sign a callback or an audit checkpoint after its retirement.
 */
export const RETIRE_AFTER_ROTATION_MS = 5_000;

export const signingKeysDecider: Decider<SigningKeyCommand, SigningKeysState, SigningKeyEvent> = {
  eventTypes: { SigningKeyCreated: true, SigningKeyRetired: true },
  initialState: { keys: [] },

  decide(command, state) {
    switch (command.type) {
      case 'EnsureSigningKey':
        if (activeKey(state)) return [];
        return [{ type: 'SigningKeyCreated', data: { ...command.key, replaces: null } }];
      case 'RotateSigningKey':
        if (state.keys.some((k) => k.kid === command.key.kid)) throw conflict(`Signing key ${command.key.kid} exists already`);
        return [{ type: 'SigningKeyCreated', data: { ...command.key, replaces: activeKey(state)?.kid ?? null } }];
      case 'RetireSigningKey': {
        const key = state.keys.find((k) => k.kid === command.kid);
        if (!key) throw notFound(`No signing key ${command.kid}`);
        if (key.status === 'retired') return [];
        if (key.status === 'active') {
          throw conflict(`Signing key ${command.kid} is the one in use; rotate first, then retire it`);
        }
        // Keys are kept in creation order: the one after a rotated key replaced it.
        const replacedAt = Date.parse(state.keys[state.keys.indexOf(key) + 1]?.createdAt ?? '');
        const retirableFrom = replacedAt + RETIRE_AFTER_ROTATION_MS;
        if (Date.parse(command.at) < retirableFrom) {
          throw conflict(
            `Signing key ${command.kid} was rotated out moments ago and running servers may still sign with it; retire it from ${new Date(retirableFrom).toISOString()} on`,
          );
        }
        return [{ type: 'SigningKeyRetired', data: { kid: command.kid, retiredAt: command.at } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'SigningKeyCreated':
        return {
          keys: [
            ...state.keys.map((k) => (k.status === 'active' ? { ...k, status: 'rotated' as const } : k)),
            { kid: event.data.kid, x: event.data.x, d: event.data.d, status: 'active', createdAt: event.data.createdAt },
          ],
        };
      case 'SigningKeyRetired':
        return { keys: state.keys.map((k) => (k.kid === event.data.kid ? { ...k, status: 'retired' as const } : k)) };
    }
  },
};
