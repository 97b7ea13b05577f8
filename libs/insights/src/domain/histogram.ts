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

/** Adds `from` into `into` (bins as keys). */
export function addHistogram(into: Map<number, number>, from: Histogram): void {
  for (const [bin, n] of Object.entries(from)) into.set(Number(bin), (into.get(Number(bin)) ?? 0) + n);
}

/** Nearest-rank percentile (q in (0, 1]) of a histogram, as its bin's upper edge in seconds; null when empty. */
export function histogramPercentile(histogram: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bin of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bin)!;
    if (seen >= rank) return binUpperSeconds(bin);
  }
  return null;
}
