/**
 * A named, expiring lease: at most one holder at a time. Workers that share one embedded data
 * file run each reactor only while they hold its lease; the others stand by and take over once
 * it expires (or at once when its holder released it or is known to be gone).
 */
export interface LeaseStore {
  /**
   * Takes the lease for `ttlMs` when it is free, expired, released or already ours. False when
   * another holder has it.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /**
   * Extends the lease by `ttlMs` from now. False when it is no longer ours: it expired (even if
   * nobody took it yet) or another holder took it. A holder that gets false must stop at once.
   */
  renew(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (no-op when it is not ours), so that a standby takes over at once. */
  release(name: string, holder: string): Promise<void>;
  /** The current holder and expiry, for operators and tests; undefined when never taken. */
  inspect(name: string): Promise<{ holder: string; expiresAt: number } | undefined>;
}

/** Lease names and holder ids become keys of the lease table: printable, bounded text only. */
export function assertLeaseKey(kind: 'name' | 'holder', value: string): void {
  if (!/^[A-Za-z0-9._:/@-]{1,200}$/.test(value)) throw new Error(`Invalid lease ${kind}: ${JSON.stringify(value)}`);
}
