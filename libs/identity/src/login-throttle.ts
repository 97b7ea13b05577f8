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
  return [`account:${emailDigest}`, `address:${createHash('sha256').update(clientNetwork(clientAddress)).digest('hex')}`];
}
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60_000;
const WRITE_ATTEMPTS = 8;

type FailuresDoc = { at: number[]; writer: string };

/**
 * Sign-in failures per account (email digest) and per client address: a key with 10 failures in
 * the last 15 minutes is refused until the oldest of them leaves the window. Kept in the read
 * store, which every process of the deployment shares (SQLite file or MongoDB); concurrent
 * failures update a key by compare-and-set on the document's version, so none is lost.
 * A success resets nothing: an attacker who knows one password cannot reset an address's count.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Seconds to wait before any of `keys` may try again; 0 when none is throttled. */
  async retryAfter(keys: readonly string[]): Promise<number> {
    const now = this.clock.now().getTime();
    let wait = 0;
    for (const key of keys) {
      const recent = this.recent((await this.readStore.get<FailuresDoc>(LOGIN_FAILURES, key))?.at ?? [], now);
      if (recent.length >= MAX_FAILURES) {
        wait = Math.max(wait, Math.ceil((recent[recent.length - MAX_FAILURES]! + FAILURE_WINDOW_MS - now) / 1000));
      }
    }
    return Math.max(wait, wait > 0 ? 1 : 0);
  }

  async recordFailure(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.add(key)));
  }

  private async add(key: string): Promise<void> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const now = this.clock.now().getTime();
      const current = await this.readStore.getVersioned<FailuresDoc>(LOGIN_FAILURES, key);
      const version = (current?.position ?? 0) + 1;
      const writer = randomUUID();
      // Only the last MAX_FAILURES matter for the decision.
      const at = [...this.recent(current?.doc.at ?? [], now), now].slice(-MAX_FAILURES);
      // A positioned write never replaces a version it did not read: a concurrent writer wins, we read again.
      await this.readStore.commit([{ op: 'put', collection: LOGIN_FAILURES, id: key, doc: { at, writer }, position: version }]);
      const written = await this.readStore.get<FailuresDoc>(LOGIN_FAILURES, key);
      if (written?.writer === writer) return;
    }
  }

  private recent(at: readonly number[], now: number): number[] {
    return at.filter((t) => t > now - FAILURE_WINDOW_MS);
  }
}
