import { describe, expect, it } from 'vitest';
import { admit, CLOSED, release, retryDelayMs, settle, type BreakerState } from './circuit-breaker.js';

const policy = { threshold: 3, openMs: 1000 };

describe('the partial-items circuit breaker', () => {
  it('opens after the threshold of failures in a row, fails fast while open, and lets one trial out after openMs', () => {
    let state: BreakerState = CLOSED;
    for (let i = 0; i < 2; i++) state = settle(state, false, 0, policy);
    expect(admit(state, 0).allowed).toBe(true);
    state = settle(state, false, 10, policy);
    expect(admit(state, 500)).toEqual({ allowed: false, retryAt: 1010 });
    const trial = admit(state, 1010);
    expect(trial.allowed).toBe(true);
    state = trial.allowed ? trial.state : state;
    // One trial at a time: the others still fail fast.
    expect(admit(state, 1011).allowed).toBe(false);
    // The trial failed: open again for openMs.
    state = settle(state, false, 1100, policy);
    expect(admit(state, 1500)).toEqual({ allowed: false, retryAt: 2100 });
  });

  it('gives a trial back when its attempt does not count (a refused address), so the next attempt is the trial', () => {
    let state: BreakerState = CLOSED;
    for (let i = 0; i < 3; i++) state = settle(state, false, 0, policy);
    const trial = admit(state, 1000);
    expect(trial.allowed).toBe(true);
    state = release(trial.allowed ? trial.state : state);
    expect(admit(state, 1001).allowed).toBe(true);
    // Nothing to give back outside a trial.
    expect(release(CLOSED)).toBe(CLOSED);
  });

  it('a success closes it and forgets the failures', () => {
    let state = settle(settle(CLOSED, false, 0, policy), false, 0, policy);
    state = settle(state, true, 0, policy);
    expect(state).toEqual(CLOSED);
    state = settle(settle(state, false, 0, policy), false, 0, policy);
    expect(admit(state, 0).allowed).toBe(true);
  });
});

describe('retry delays', () => {
  it('grow by four from 100 ms, spread by ±20 %, capped, and wait at least a Retry-After', () => {
    expect(retryDelayMs(1, 0.5)).toBe(100);
    expect(retryDelayMs(2, 0.5)).toBe(400);
    expect(retryDelayMs(2, 0)).toBe(320);
    expect(retryDelayMs(2, 1)).toBe(480);
    expect(retryDelayMs(9, 0.5)).toBe(5000);
    expect(retryDelayMs(1, 0.5, 2000)).toBe(2000);
    expect(retryDelayMs(1, 0.5, 60_000)).toBe(5000);
  });
});
