import { describe, expect, it } from 'vitest';
import type { Signal } from './evaluation.model.js';
import { SignalRegistry } from './signal-registry.js';

const signal = (cost: number): Signal => ({ type: 'USER_SCORE', cost, inputKinds: ['creator'], evaluate: async () => 1 });

describe('SignalRegistry', () => {
  it('finds registered signals and their costs', () => {
    const registry = new SignalRegistry().register(signal(10));
    expect(registry.get('USER_SCORE')?.cost).toBe(10);
    expect(registry.cost('USER_SCORE')).toBe(10);
  });

  it('knows nothing of unregistered signals, which cost nothing', () => {
    const registry = new SignalRegistry();
    expect(registry.get('USER_SCORE')).toBeUndefined();
    expect(registry.cost('USER_SCORE')).toBe(0);
  });

  it('refuses a second registration of a type and a bad cost', () => {
    const registry = new SignalRegistry().register(signal(1));
    expect(() => registry.register(signal(2))).toThrow('signal USER_SCORE is already registered');
    expect(() => new SignalRegistry().register(signal(-1))).toThrow(/invalid cost/);
  });

  it('changes revision with every registration', () => {
    const registry = new SignalRegistry();
    const before = registry.revision;
    registry.register(signal(1));
    expect(registry.revision).not.toBe(before);
  });
});
