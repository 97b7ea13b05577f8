import ngeohash from 'ngeohash';
import { describe, expect, it } from 'vitest';
import type { SignalContext } from '../evaluation.model.js';
import { geoWithinSignal, haversineKm } from './geo-within.signal.js';

const ctx = {} as SignalContext;
const paris = { lat: 48.8566, lon: 2.3522 };
const within = (input: unknown, radiusKm: number) => geoWithinSignal.evaluate(input, { ...paris, radiusKm }, ctx);

describe('GEO_WITHIN', () => {
  it('declares cost 1', () => {
    expect(geoWithinSignal.cost).toBe(1);
  });

  it('computes great-circle distances', () => {
    // Paris to London is about 344 km.
    expect(haversineKm(48.8566, 2.3522, 51.5074, -0.1278)).toBeCloseTo(343.6, 0);
    expect(haversineKm(10, 10, 10, 10)).toBe(0);
  });

  it('is true for a geohash whose centre lies within the radius', async () => {
    const eiffelTower = ngeohash.encode(48.8584, 2.2945, 9);
    expect(await within(eiffelTower, 10)).toBe(true);
    expect(await within(eiffelTower.toUpperCase(), 10)).toBe(true);
    const london = ngeohash.encode(51.5074, -0.1278, 9);
    expect(await within(london, 300)).toBe(false);
    expect(await within(london, 400)).toBe(true);
  });

  it('explains with the distance', () => {
    const london = ngeohash.encode(51.5074, -0.1278, 9);
    const detail = geoWithinSignal.explain?.(london, { ...paris, radiusKm: 400 }, true, ctx);
    expect(detail?.distanceKm).toBeCloseTo(343.6, 0);
  });

  it('fails on an invalid geohash or arguments', async () => {
    expect(() => within('u09a!', 10)).toThrow(/invalid geohash/);
    expect(() => within('ailo', 10)).toThrow(/invalid geohash/);
    expect(() => within(12, 10)).toThrow(/geohash input/);
    expect(() => geoWithinSignal.evaluate('u09', { lat: 91, lon: 0, radiusKm: 1 }, ctx)).toThrow(/args.lat/);
    expect(() => geoWithinSignal.evaluate('u09', { lat: 0, lon: 0 }, ctx)).toThrow(/args.radiusKm/);
  });
});
