import { Injectable } from '@nestjs/common';

/** How long a claim made here is remembered at most (the projection normally shows it within milliseconds). */
const REMEMBER_MS = 30_000;

/**
 * Lowers contention between claimers in one process; correctness never depends on it (each claim
 * is decided on the job's stream). Claims on one (organization, queue) run one after another, and
 * a job claimed here is passed over until the read model shows that claim, so concurrent claimers
 * do not all fight over the first candidate the (slightly behind) read model proposes.
 */
@Injectable()
export class ClaimCoordinator {
  private readonly chains = new Map<string, Promise<unknown>>();
  /** jobId → the job document's revision when it was claimed here, and when. */
  private readonly claimed = new Map<string, { revision: number; at: number }>();

  /** Runs `claim` after the claims already queued for the same queue. */
  serialize<T>(orgId: string, queueId: string, claim: () => Promise<T>): Promise<T> {
    const key = `${orgId}\u0000${queueId}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const run = previous.then(claim, claim);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return run;
  }

  remember(orgId: string, jobId: string, revisionSeen: number, now: number): void {
    this.claimed.set(`${orgId}:${jobId}`, { revision: revisionSeen, at: now });
    if (this.claimed.size > 10_000) this.forgetOld(now);
  }

  /** Whether the candidate, as the read model shows it, is still from before a claim made here. */
  isStale(orgId: string, candidate: { jobId: string; revision: number }, now: number): boolean {
    const key = `${orgId}:${candidate.jobId}`;
    const entry = this.claimed.get(key);
    if (!entry) return false;
    if (candidate.revision > entry.revision || now - entry.at > REMEMBER_MS) {
      this.claimed.delete(key);
      return false;
    }
    return true;
  }

  private forgetOld(now: number): void {
    for (const [key, entry] of this.claimed) if (now - entry.at > REMEMBER_MS) this.claimed.delete(key);
  }
}
