/**
 * Time to decision, per queue and UTC day, kept as a fixed histogram of log-spaced bins instead
 * of every sample (docs/insights.md, "Time to decision"): four bins per doubling of the seconds,
 * so a bin's upper edge is at most 19% above any duration in it, and a year fits in about a
 * hundred bins. A period's p50 and p90 are read from the days' histograms added up.
 */
export const BINS_PER_DOUBLING = 4;

/** The bin of a duration in milliseconds (negative durations, a clock skew, count as zero). */
export function durationBin(milliseconds: number): number {
  const seconds = Math.max(0, milliseconds / 1000);
  return Math.floor(Math.log2(seconds + 1) * BINS_PER_DOUBLING);
}

/** The bin's upper edge in seconds, rounded to a tenth: what a percentile read from it reports. */
export function binUpperSeconds(bin: number): number {
  return Math.round((2 ** ((bin + 1) / BINS_PER_DOUBLING) - 1) * 10) / 10;
}

export type Histogram = { [bin: string]: number };

/** Bins a sum needs: 2^(160/4) seconds is far beyond any wait. */
export const MAX_BINS = 160;

/** An empty sum of histograms, indexed by bin (a typed array: adding a year of days allocates nothing). */
export const emptySum = (): Float64Array => new Float64Array(MAX_BINS);

/** Adds a stored histogram into a sum. */
export function addHistogram(into: Float64Array, from: Histogram): void {
  for (const bin in from) {
    const i = Number(bin);
    if (i >= 0 && i < MAX_BINS) into[i]! += from[bin]!;
  }
}

/** Nearest-rank percentile (q in (0, 1]) of a sum, as its bin's upper edge in seconds; null when empty. */
export function histogramPercentile(sum: Float64Array, q: number): number | null {
  let total = 0;
  for (const n of sum) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let bin = 0; bin < sum.length; bin++) {
    seen += sum[bin]!;
    if (seen >= rank) return binUpperSeconds(bin);
  }
  return null;
}
