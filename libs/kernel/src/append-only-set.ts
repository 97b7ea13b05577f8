/**
 * A persistent set of strings that only grows, for decider states that remember one key per event
 * (a review job's merged request ids, its idempotency check): adding costs what is added, not the
 * set's size, and never changes a set already handed out, so folding N events costs O(N), not
 * O(N²) as copying a `Set` per event did (docs/architecture.md, "Streams and what a command costs").
 *
 * Sets made from one another share one Map of key → the order it was added in; a set sees the keys
 * added before its `size`. Adding to the newest set adds to the shared Map. Adding to an older one
 * (a state folded again after an append conflict, a decider spec's two branches) finds the Map
 * larger than itself and copies its own keys first; so does an empty one, so that a decider's
 * initial state never keeps (and never lends) the keys of the first stream folded from it.
 */
export class AppendOnlySet implements Iterable<string> {
  private static readonly none = new AppendOnlySet(new Map(), 0);

  private constructor(
    private readonly shared: Map<string, number>,
    /** How many of the shared keys this set holds: those added in order 0 … size − 1. */
    readonly size: number,
  ) {}

  static empty(): AppendOnlySet {
    return AppendOnlySet.none;
  }

  static of(keys: Iterable<string>): AppendOnlySet {
    return AppendOnlySet.none.with(keys);
  }

  /** This set with `keys` added (those it has already are left where they are). */
  with(keys: Iterable<string>): AppendOnlySet {
    const shared = this.size > 0 && this.shared.size === this.size ? this.shared : this.ownCopy();
    let size = this.size;
    for (const key of keys) if (!shared.has(key)) shared.set(key, size++);
    return shared === this.shared && size === this.size ? this : new AppendOnlySet(shared, size);
  }

  has(key: string): boolean {
    const order = this.shared.get(key);
    return order !== undefined && order < this.size;
  }

  /** The keys in the order they were added. */
  *[Symbol.iterator](): Iterator<string> {
    // A Map iterates in insertion order, which is the order numbering: the keys past this set come last.
    for (const [key, order] of this.shared) {
      if (order >= this.size) return;
      yield key;
    }
  }

  /** Serialized as its keys (a snapshot encodes it so: `AppendOnlySet.of` reads it back). */
  toJSON(): string[] {
    return [...this];
  }

  private ownCopy(): Map<string, number> {
    const own = new Map<string, number>();
    for (const key of this) own.set(key, own.size);
    return own;
  }
}
