/**
 * A bounded cache for compiled matchers: config changes over time, so old entries must go.
 * Two generations: when the young one is full it becomes the old one and the previous old one
 * is dropped, so eviction is O(1) without walking a Map's tombstones; entries still in use are
 * carried over into the young generation when read.
 */
export class CompileCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private readonly generationSize: number;

  constructor(maxEntries: number) {
    this.generationSize = Math.max(1, Math.floor(maxEntries / 2));
  }

  get(key: string, build: () => V): V {
    if (this.young.has(key)) return this.young.get(key) as V;
    const value = this.old.has(key) ? (this.old.get(key) as V) : build();
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    return value;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
