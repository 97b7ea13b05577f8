import ngeohash from 'ngeohash';
import type { Signal } from '../evaluation.model.js';
import { describe } from './term-matcher.js';

const GEOHASH = /^[0-9b-hjkmnp-z]{1,12}$/i;
/** Mean Earth radius (IUGG). */
const EARTH_RADIUS_KM = 6371.0088;

interface Target {
  readonly lat: number;
  readonly lon: number;
  readonly radiusKm: number;
}

function target(args: { readonly [key: string]: unknown }): Target {
  const { lat, lon, radiusKm } = args;
  if (typeof lat !== 'number' || !(lat >= -90 && lat <= 90)) throw new Error('GEO_WITHIN needs args.lat between -90 and 90');
  if (typeof lon !== 'number' || !(lon >= -180 && lon <= 180)) throw new Error('GEO_WITHIN needs args.lon between -180 and 180');
  if (typeof radiusKm !== 'number' || !(radiusKm >= 0) || !Number.isFinite(radiusKm)) {
    throw new Error('GEO_WITHIN needs args.radiusKm, a non-negative number');
  }
  return { lat, lon, radiusKm };
}

/** Kilometres from the centre of the geohash cell to the target point. */
function distanceKm(input: unknown, to: Target): number {
  if (typeof input !== 'string' || !GEOHASH.test(input)) {
    throw new Error(`GEO_WITHIN needs a geohash input, got ${typeof input === 'string' ? 'an invalid geohash' : describe(input)}`);
  }
  const { latitude, longitude } = ngeohash.decode(input.toLowerCase());
  return haversineKm(latitude, longitude, to.lat, to.lon);
}

export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const toRad = Math.PI / 180;
  const dLat = (lat2 - lat1) * toRad;
  const dLon = (lon2 - lon1) * toRad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * toRad) * Math.cos(lat2 * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** `{lat, lon, radiusKm}` → true when the geohash's centre is within radiusKm of the point. */
export const geoWithinSignal: Signal = {
  type: 'GEO_WITHIN',
  cost: 1,
  inputKinds: ['geohash'],
  evaluate(input, args) {
    const to = target(args);
    return distanceKm(input, to) <= to.radiusKm;
  },
  explain(input, args) {
    return { distanceKm: Math.round(distanceKm(input, target(args)) * 1000) / 1000 };
  },
};
