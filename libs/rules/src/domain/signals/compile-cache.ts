/**
 * A bounded cache for compiled matchers: config changes over time, so old entries must go.
 * First in, first out: compiled matchers are cheap to rebuild and lookups stay O(1).
 */
export class CompileCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string, build: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined && !this.entries.has(key)) {
      value = build();
      this.entries.set(key, value);
      if (this.entries.size > this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (oldest.done !== true) this.entries.delete(oldest.value);
      }
    }
    return value as V;
  }

  get size(): number {
    return this.entries.size;
  }
}
