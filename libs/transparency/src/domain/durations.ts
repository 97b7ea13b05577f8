/**
 * Durations in the transparency report: seconds rounded down to three significant digits, so that
 * a day's histogram stays small (at most 900 buckets a decade) and a period's median and 90th
 * percentile come from the days' histograms (docs/transparency.md, "The report").
 */
export function durationBucket(milliseconds: number): number {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const digits = String(seconds).length;
  if (digits <= 3) return seconds;
  const unit = 10 ** (digits - 3);
  return Math.floor(seconds / unit) * unit;
}

/** Nearest-rank percentile (q in (0, 1]) of a histogram of bucket → count; null when it is empty. */
export function percentile(histogram: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const count of histogram.values()) total += count;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return bucket;
  }
  return null;
}
