import { LRUCache } from 'lru-cache';

/** A stream's state as a decider folded it, up to and including the event at `revision` (-1: none). */
export interface CachedAggregate<State = unknown> {
  readonly state: State;
  readonly revision: number;
  /** The revision of the stream's newest stored snapshot (-1: none), so the next one is taken N events later. */
  readonly snapshotRevision: number;
  /**
   * A state that may hold personal data: the deployment's erasure count (SubjectKeyStore.erasures)
   * when it was read. A count that has moved since means an erasure in any process may have made
   * part of it unreadable: the state is read again (Aggregates).
   */
  readonly erasures?: number;
}

/** How long a state that may hold personal data stays cached: an erasure elsewhere reaches this process's memory within it. */
export const PERSONAL_STATE_TTL_MS = 60_000;

/** Default memory budget of a process's aggregate cache (WARDEN_AGGREGATE_CACHE_MB). */
export const DEFAULT_AGGREGATE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The process's folded aggregate states, least recently used first out once their estimated size
 * passes the budget (docs/architecture.md, "Write side"): a command reads only the events after the cached
 * revision. Entries are only ever replaced by a later revision, so a slow reader cannot put an
 * older state back over a newer one.
 */
export class AggregateCache {
  private readonly entries: LRUCache<string, CachedAggregate>;

  constructor(budgetBytes = DEFAULT_AGGREGATE_CACHE_BYTES) {
    this.entries = new LRUCache<string, CachedAggregate>({
      maxSize: Math.max(1, budgetBytes),
      // A state larger than a quarter of the budget (a hash bank's millions of hashes) is not kept:
      // it would push every other state out, and its stream is read rarely.
      maxEntrySize: Math.max(1, Math.floor(budgetBytes / 4)),
      sizeCalculation: (entry, key) => Math.max(1, key.length * 2 + approximateSize(entry.state)),
    });
    // Expired personal states leave memory, not only reads: an erasure's reach does not wait for an eviction.
    setInterval(() => this.entries.purgeStale(), PERSONAL_STATE_TTL_MS).unref();
  }

  get<State>(key: string): CachedAggregate<State> | undefined {
    return this.entries.get(key) as CachedAggregate<State> | undefined;
  }

  /** Keeps the entry (not over a later revision); a `personal` one for PERSONAL_STATE_TTL_MS at most from its first caching. */
  set(key: string, entry: CachedAggregate, personal = false): void {
    const existing = this.entries.peek(key);
    if (existing && existing.revision > entry.revision) return;
    if (existing === entry) return;
    this.entries.set(key, entry, personal ? { ttl: PERSONAL_STATE_TTL_MS, noUpdateTTL: existing !== undefined } : undefined);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}

/** Collections longer than this are estimated from a sample of their entries: the estimate must stay cheaper than the command it caches. */
const SAMPLED_ENTRIES = 64;

/**
 * A rough size in bytes of a plain state (objects, arrays, Maps, Sets, strings, numbers): enough to
 * keep the cache's memory near its budget; exact accounting would cost more than it saves. A long
 * collection counts as its first entries' average times its length. Runs on every command's
 * caching, so it allocates nothing for what it looks at: an estimate through `Object.entries` and
 * entry arrays was an eighth of a worker's allocations in a burst (docs/benchmarks.md, "Floods and
 * long histories", fifth session).
 */
export function approximateSize(value: unknown): number {
  if (typeof value === 'string') return 16 + value.length * 2;
  if (value === null || typeof value !== 'object') return 8;
  if (value instanceof Map) return 64 + mapSample(value);
  if (value instanceof Set) return 64 + setSample(value);
  if (Array.isArray(value)) return 32 + arraySample(value);
  return 48 + objectSample(value as Record<string, unknown>);
}

/** The first SAMPLED_ENTRIES' total, as the average of those seen times `length`. */
const extrapolated = (bytes: number, seen: number, length: number) => (seen === 0 ? 0 : Math.round((bytes / seen) * length));

function arraySample(value: readonly unknown[]): number {
  const seen = Math.min(value.length, SAMPLED_ENTRIES);
  let bytes = 0;
  for (let i = 0; i < seen; i++) bytes += approximateSize(value[i]);
  return extrapolated(bytes, seen, value.length);
}

function mapSample(value: ReadonlyMap<unknown, unknown>): number {
  let bytes = 0;
  let seen = 0;
  for (const key of value.keys()) {
    if (seen === SAMPLED_ENTRIES) break;
    bytes += approximateSize(key) + approximateSize(value.get(key));
    seen++;
  }
  return extrapolated(bytes, seen, value.size);
}

function setSample(value: ReadonlySet<unknown>): number {
  let bytes = 0;
  let seen = 0;
  for (const entry of value) {
    if (seen === SAMPLED_ENTRIES) break;
    bytes += approximateSize(entry);
    seen++;
  }
  return extrapolated(bytes, seen, value.size);
}

function objectSample(value: Record<string, unknown>): number {
  let bytes = 0;
  let seen = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    // Past the sample, the length alone is needed: counted without looking at the values.
    if (seen === SAMPLED_ENTRIES) return extrapolated(bytes, seen, Object.keys(value).length);
    bytes += approximateSize(key) + approximateSize(value[key]);
    seen++;
  }
  return extrapolated(bytes, seen, seen);
}
