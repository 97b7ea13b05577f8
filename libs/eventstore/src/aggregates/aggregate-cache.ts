import { LRUCache } from 'lru-cache';

/** A stream's state as a decider folded it, up to and including the event at `revision` (-1: none). */
export interface CachedAggregate<State = unknown> {
  readonly state: State;
  readonly revision: number;
  /** The revision of the stream's newest stored snapshot (-1: none), so the next one is taken N events later. */
  readonly snapshotRevision: number;
}

/** How long a state that may hold personal data stays cached: an erasure elsewhere reaches this process's memory within it. */
export const PERSONAL_STATE_TTL_MS = 60_000;

/** Default memory budget of a process's aggregate cache (WARDEN_AGGREGATE_CACHE_MB). */
export const DEFAULT_AGGREGATE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The process's folded aggregate states, least recently used first out once their estimated size
 * passes the budget (DESIGN.md section 3): a command reads only the events after the cached
 * revision. Entries are only ever replaced by a later revision, so a slow reader cannot put an
 * older state back over a newer one.
 */
export class AggregateCache {
  private readonly entries: LRUCache<string, CachedAggregate>;

  constructor(budgetBytes = DEFAULT_AGGREGATE_CACHE_BYTES) {
    this.entries = new LRUCache<string, CachedAggregate>({
      maxSize: Math.max(1, budgetBytes),
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

  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}

/** Past this many values a state is taken as this large: the estimate must stay cheaper than the command it caches. */
const MAX_VALUES_WALKED = 50_000;

/**
 * A rough size in bytes of a plain state (objects, arrays, Maps, Sets, strings, numbers): enough to
 * keep the cache's memory near its budget; exact accounting would cost more than it saves.
 */
export function approximateSize(value: unknown): number {
  let bytes = 0;
  let walked = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && walked < MAX_VALUES_WALKED) {
    const v = stack.pop();
    walked += 1;
    if (typeof v === 'string') bytes += 16 + v.length * 2;
    else if (v === null || typeof v !== 'object') bytes += 8;
    else if (v instanceof Map) {
      bytes += 64;
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      bytes += 64;
      for (const x of v) stack.push(x);
    } else if (Array.isArray(v)) {
      bytes += 32;
      for (const x of v) stack.push(x);
    } else {
      bytes += 48;
      for (const [k, x] of Object.entries(v)) stack.push(k, x);
    }
  }
  return stack.length > 0 ? bytes * 2 : bytes;
}
