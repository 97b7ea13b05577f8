/**
 * When to retry a failed callback. The schedule (WARDEN_CALLBACK_RETRY_SCHEDULE) gives the base
 * delay before each retry, growing roughly exponentially by default; its length is the number of
 * retries. Each delay is spread by +/-20 % so that receivers recovering from an outage are not hit
 * by every delivery at once, and a receiver's Retry-After is honoured when it asks for longer.
 */
export const JITTER = 0.2;
/** A Retry-After beyond this is not taken literally: a day at most. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * The delay before retry number `retry` (1 = the first retry, after the first failed attempt),
 * or undefined when the schedule has no more retries and the delivery is to be dead-lettered.
 * `random` is a number in [0, 1) (injected so that the outcome is reproducible in tests).
 */
export function retryDelayMs(schedule: readonly number[], retry: number, random: number, retryAfterMs: number | null = null): number | undefined {
  const base = schedule[retry - 1];
  if (base === undefined) return undefined;
  const jittered = Math.max(1, Math.round(base * (1 - JITTER + 2 * JITTER * random)));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
