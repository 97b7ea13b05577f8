/**
 * A circuit breaker per organization's endpoint (docs/partial-items.md, "Failures"): after
 * `threshold` failed attempts in a row it opens, and every fetch fails at once, without a request,
 * for `openMs`; then one trial request goes out (half-open) and its outcome closes or re-opens it.
 * A dead endpoint so costs one timeout per `openMs` instead of one per item. Pure: time is passed in.
 */
export interface BreakerState {
  readonly failures: number;
  /** While open: when the next trial request may go out. */
  readonly openUntil: number | null;
  /** A trial request is out (half-open): others still fail fast. */
  readonly trial: boolean;
}

export const CLOSED: BreakerState = { failures: 0, openUntil: null, trial: false };

export interface BreakerPolicy {
  readonly threshold: number;
  readonly openMs: number;
}

export const DEFAULT_BREAKER: BreakerPolicy = { threshold: 5, openMs: 30_000 };

/** Whether a request may go out now, and the state once it does. */
export function admit(state: BreakerState, now: number): { allowed: true; state: BreakerState } | { allowed: false; retryAt: number } {
  if (state.openUntil === null) return { allowed: true, state };
  if (state.trial || now < state.openUntil) return { allowed: false, retryAt: state.openUntil };
  return { allowed: true, state: { ...state, trial: true } };
}

/** An attempt's outcome. */
export function settle(state: BreakerState, ok: boolean, now: number, policy: BreakerPolicy = DEFAULT_BREAKER): BreakerState {
  if (ok) return CLOSED;
  const failures = state.failures + 1;
  if (state.trial || failures >= policy.threshold) return { failures, openUntil: now + policy.openMs, trial: false };
  return { failures, openUntil: null, trial: false };
}

/**
 * An admitted attempt that does not count (a refused address: the configuration's fault, not the
 * endpoint's): a trial it took is given back, so that the next attempt may be the trial. Kept, the
 * breaker would refuse every attempt until the process restarts.
 */
export function release(state: BreakerState): BreakerState {
  return state.trial ? { ...state, trial: false } : state;
}

/**
 * The wait before retry `retry` (1-based) of a failed request: 100 ms, 400 ms, 1.6 s … (×4), spread
 * by ±20 % so that items waiting on one endpoint do not retry in step; a `Retry-After` the
 * endpoint sent counts when longer, up to `maxMs`.
 */
export function retryDelayMs(retry: number, random: number, retryAfterMs: number | null = null, maxMs = 5_000): number {
  const base = Math.min(maxMs, 100 * 4 ** (retry - 1));
  const jittered = Math.round(base * (0.8 + 0.4 * random));
  return Math.min(maxMs, Math.max(jittered, retryAfterMs ?? 0));
}
