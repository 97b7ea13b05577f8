import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Clock } from '#warden/kernel';
import { CLOCK, clientNetwork } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';

/** Operational data, not a projection's: a read-model rebuild keeps it. */
export const LOGIN_FAILURES = 'identity_login_failures';

/**
 * What one sign-in attempt counts against: its account (the email's digest) and its client's
 * network (an IPv6 /64 as one, or a client would take a fresh address per guess), the latter
 * hashed so the store holds no address.
 */
export function loginThrottleKeys(emailDigest: string, clientAddress: string): string[] {
  return [`account:${emailDigest}`, clientNetworkKey(clientAddress)];
}

/**
 * The key of a client's network (an IPv6 /64 as one), hashed so the store holds no address. Other
 * sign-ins count under it with a prefix of their own (SSO: `saml:<orgId>:`), so that one way of
 * signing in failing does not lock out another.
 */
export function clientNetworkKey(clientAddress: string): string {
  return `address:${createHash('sha256').update(clientNetwork(clientAddress)).digest('hex')}`;
}
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60_000;
const WRITE_ATTEMPTS = 8;

/** One counted attempt; `id` lets a sign-in that turns out right take its own back. */
type Attempt = { at: number; id: string };
/** `at` is the shape written before attempts were counted up front: failures without ids. */
type AttemptsDoc = { attempts?: Attempt[]; at?: number[]; writer: string };

/** A sign-in attempt counted against its keys, or refused for `retryAfter` seconds. */
export type ThrottledAttempt = { readonly retryAfter: 0; readonly id: string } | { readonly retryAfter: number; readonly id: null };

/**
 * Sign-in attempts per account (email digest) and per client network: a key with 10 failures in
 * the last 15 minutes is refused until the oldest of them leaves the window. An attempt is
 * counted BEFORE its password is checked, and taken back only when the password was right: so
 * 500 guesses sent at once are counted as they arrive and the 11th is refused, instead of all
 * passing a check made before any of them failed. Kept in the read store, which every process of
 * the deployment shares (SQLite file or MongoDB); a key is updated by compare-and-set on the
 * document's version, so no concurrent count is lost. A success takes back only its own attempt:
 * an attacker who knows one password cannot reset an address's count.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Counts an attempt against every key, or refuses it (counting nothing) when one is spent. */
  async begin(keys: readonly string[]): Promise<ThrottledAttempt> {
    const id = randomUUID();
    const counted: string[] = [];
    for (const key of keys) {
      const wait = await this.update(key, (recent, now) => {
        if (recent.length >= MAX_FAILURES) return Math.max(1, Math.ceil((recent[recent.length - MAX_FAILURES]!.at + FAILURE_WINDOW_MS - now) / 1000));
        return [...recent, { at: now, id }];
      });
      if (wait > 0) {
        await this.succeeded(counted, id);
        return { retryAfter: wait, id: null };
      }
      counted.push(key);
    }
    return { retryAfter: 0, id };
  }

  /** The attempt was no guess (the password was right): it stops counting. */
  async succeeded(keys: readonly string[], id: string): Promise<void> {
    await Promise.all(keys.map((key) => this.update(key, (recent) => recent.filter((a) => a.id !== id))));
  }

  /**
   * Applies `change` to the key's recent attempts by compare-and-set: a number refuses (the
   * seconds to wait), a list is written. A key so contended that it cannot be written refuses
   * for a second rather than let an attempt through uncounted.
   */
  private async update(key: string, change: (recent: Attempt[], now: number) => Attempt[] | number): Promise<number> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const now = this.clock.now().getTime();
      const current = await this.readStore.getVersioned<AttemptsDoc>(LOGIN_FAILURES, key);
      const changed = change(this.recent(current?.doc, now), now);
      if (typeof changed === 'number') return changed;
      const writer = randomUUID();
      // Only the last MAX_FAILURES matter for the decision.
      const doc: AttemptsDoc = { attempts: changed.slice(-MAX_FAILURES), writer };
      // A positioned write never replaces a version it did not read: a concurrent writer wins, we read again.
      await this.readStore.commit([{ op: 'put', collection: LOGIN_FAILURES, id: key, doc, position: (current?.position ?? 0) + 1 }]);
      if ((await this.readStore.get<AttemptsDoc>(LOGIN_FAILURES, key))?.writer === writer) return 0;
    }
    return 1;
  }

  private recent(doc: AttemptsDoc | undefined, now: number): Attempt[] {
    const attempts = doc?.attempts ?? (doc?.at ?? []).map((at) => ({ at, id: '' }));
    return attempts.filter((a) => a.at > now - FAILURE_WINDOW_MS);
  }
}
