import { PDQ_HASH_BYTES, pdqFromHex, popcount32 } from './pdq.js';

/**
 * Exact Hamming-radius search over 256-bit PDQ hashes (multi-index hashing).
 *
 * Each hash is cut into 16 chunks of 16 bits, and each chunk position has a table from chunk value
 * to the hashes carrying it. Two hashes within distance d differ in at most d bits, so by
 * pigeonhole some chunk differs in at most floor(d / 16) bits: for d <= 31 a query probes, per
 * chunk, its own value and (when d >= 16) the 16 values one bit away, then verifies candidates
 * with a full popcount. No false negatives, no false positives. Above 31 it scans linearly.
 *
 * Memory at n hashes: 32 n (hashes) + 4 n (refs, 8 n once a ref exceeds 2^32) + 48 n (16 tables
 * of 3-byte positions; 4-byte past 2^24 hashes) + 4 MiB of bucket offsets, i.e. about 88 bytes
 * per hash at one million. Tables are CSR arrays rebuilt in one pass by counting sort; hashes
 * added since the last build sit in a tail that is scanned linearly until the next build (at most
 * a sixteenth of the index and 16,384 hashes, at least `rebuildAfter`).
 *
 * At radius 31 a query over a million random hashes meets ~4,150 candidates, each a cache miss;
 * that, not arithmetic, is the cost. Hence the hash halves are stored apart (the first 128 bits
 * reject a random candidate, so the second half is rarely read) and candidates are gathered and
 * their memory touched in tight loops before the verifying loop, so that the misses overlap.
 */

export interface PdqMatch {
  readonly ref: number;
  readonly distance: number;
}

export interface PdqIndexOptions {
  /** Rebuild the tables before a search once this many hashes were added since the last build (the least: a large index waits for more). */
  readonly rebuildAfter?: number;
}

export type PdqIndexEntry = { readonly hash: Uint8Array | string; readonly ref: number };

/** 32-bit words per half hash: words 0-3 (bits 255..128) in `head`, 4-7 in `tail`. */
const HALF = 4;
const CHUNKS = 16;
const BUCKETS = 1 << 16;
/** Largest radius the tables answer exactly; beyond it every chunk may differ in 2+ bits. */
export const MAX_INDEXED_DISTANCE = 2 * CHUNKS - 1;
/** Most hashes added since the last build that a search scans before it rebuilds (rebuildAfter is the least). */
const MAX_TAIL = 16_384;
/** `nearest` collects nothing: its matches are kept in fields. */
const NO_MATCHES: PdqMatch[] = [];
const MAX_3_BYTE_POSITIONS = 1 << 24;
/** Below this many hashes a linear scan is as fast as the tables and needs no 4 MiB of offsets. */
const MIN_TABLE_SIZE = 1024;
const MAX_PROBES = CHUNKS * 17;

export class PdqIndex {
  private head = new Uint32Array(0);
  private tail = new Uint32Array(0);
  private refs: Uint32Array | Float64Array = new Uint32Array(0);
  private count = 0;
  /** Hashes [0, indexed) are in the tables; [indexed, count) are the linearly scanned tail. */
  private indexed = 0;
  private removed: Uint32Array | undefined;
  private removedCount = 0;
  private offsets: Uint32Array | undefined;
  private postings = new Uint8Array(0);
  private postingBytes = 3;
  private readonly rebuildAfter: number;
  private readonly query = new Uint32Array(2 * HALF);
  private readonly scratchHash = new Uint8Array(PDQ_HASH_BYTES);
  /** Per-query scratch: probed bucket ranges, candidate positions and the chunk that found each. */
  private readonly ranges = new Uint32Array(2 * MAX_PROBES);
  private readonly rangeChunks = new Uint8Array(MAX_PROBES);
  private candidates = new Uint32Array(8192);
  private candidateChunks = new Uint8Array(8192);
  /** Keeps the prefetching loads observable so they are not optimised away. */
  private touchSink = 0;
  /** While `nearest` runs: keep only the best match (`bestRef` -1 while none). */
  private bestOnly = false;
  private bestRef = -1;
  private bestDistance = Infinity;

  constructor(options: PdqIndexOptions = {}) {
    this.rebuildAfter = Math.max(1, options.rebuildAfter ?? 4096);
  }

  static fromEntries(entries: Iterable<PdqIndexEntry>, options?: PdqIndexOptions): PdqIndex {
    const index = new PdqIndex(options);
    index.rebuild(entries);
    return index;
  }

  /** Live hashes (added and not removed). */
  get size(): number {
    return this.count - this.removedCount;
  }

  /** Bytes held by the index per live hash, counting spare capacity and the fixed bucket table. */
  get bytesPerHash(): number {
    const bytes =
      this.head.byteLength +
      this.tail.byteLength +
      this.refs.byteLength +
      this.postings.byteLength +
      (this.offsets?.byteLength ?? 0) +
      (this.removed?.byteLength ?? 0);
    return this.size === 0 ? 0 : bytes / this.size;
  }

  /** Adds a hash under `ref`, a non-negative safe integer chosen by the caller (not unique). */
  add(hash: Uint8Array, ref: number): void {
    if (hash.length !== PDQ_HASH_BYTES) throw new RangeError(`a PDQ hash has 32 bytes, got ${hash.length}`);
    if (!Number.isSafeInteger(ref) || ref < 0) throw new RangeError(`ref must be a non-negative safe integer, got ${ref}`);
    this.ensureCapacity(this.count + 1);
    if (ref > 0xffffffff && this.refs instanceof Uint32Array) this.refs = Float64Array.from(this.refs);
    const base = this.count * HALF;
    for (let w = 0; w < HALF; w++) {
      this.head[base + w] = wordAt(hash, 4 * w);
      this.tail[base + w] = wordAt(hash, 4 * (w + HALF));
    }
    this.refs[this.count] = ref;
    this.count++;
  }

  addHex(hex: string, ref: number): void {
    this.add(pdqFromHex(hex, this.scratchHash), ref);
  }

  /** Removes every hash added under `ref`; returns how many. */
  remove(ref: number): number {
    return this.removeWhere((r) => r === ref);
  }

  /** Removes every hash whose ref satisfies `predicate`; returns how many. */
  removeWhere(predicate: (ref: number) => boolean): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.isRemoved(i) || !predicate(this.refs[i]!)) continue;
      this.removed ??= new Uint32Array((this.head.length / HALF + 31) >>> 5);
      this.removed[i >>> 5]! |= 1 << (i & 31);
      n++;
    }
    this.removedCount += n;
    return n;
  }

  /** Replaces the whole content, e.g. when a bank is reloaded. */
  rebuild(entries: Iterable<PdqIndexEntry>): void {
    this.clear();
    for (const e of entries) {
      if (typeof e.hash === 'string') this.addHex(e.hash, e.ref);
      else this.add(e.hash, e.ref);
    }
    this.build();
  }

  clear(): void {
    this.head = new Uint32Array(0);
    this.tail = new Uint32Array(0);
    this.refs = new Uint32Array(0);
    this.count = 0;
    this.indexed = 0;
    this.removed = undefined;
    this.removedCount = 0;
    this.offsets = undefined;
    this.postings = new Uint8Array(0);
  }

  /**
   * Every live hash within `maxDistance` bits of `query`, nearest first. Builds the tables first
   * when enough hashes were added or removed since the last build.
   */
  search(query: Uint8Array, maxDistance: number): PdqMatch[] {
    const out: PdqMatch[] = [];
    this.bestOnly = false;
    this.collect(query, maxDistance, out);
    return out.sort((a, b) => a.distance - b.distance || a.ref - b.ref);
  }

  /**
   * The live hash nearest to `query` within `maxDistance` bits (the smaller ref on a tie), or
   * undefined. A rule wants one hash, not the set: at radius 256 every hash of a million-hash bank
   * is "within", and collecting and sorting them all held the evaluating thread for half a second
   * per image. Here nothing is collected, the tables answer radius 31 first, and only when nothing
   * lies that near does one pass over the hashes run, its bound tightening as nearer ones turn up.
   */
  nearest(query: Uint8Array, maxDistance: number): PdqMatch | undefined {
    if (!Number.isInteger(maxDistance)) throw new RangeError(`maxDistance must be an integer, got ${maxDistance}`);
    this.bestOnly = true;
    this.bestRef = -1;
    this.bestDistance = Infinity;
    try {
      this.collect(query, Math.min(maxDistance, MAX_INDEXED_DISTANCE), NO_MATCHES);
      if (this.bestRef < 0 && maxDistance > MAX_INDEXED_DISTANCE && this.size > 0) this.scan(0, this.count, maxDistance, NO_MATCHES);
      return this.bestRef < 0 ? undefined : { ref: this.bestRef, distance: this.bestDistance };
    } finally {
      this.bestOnly = false;
    }
  }

  nearestHex(hex: string, maxDistance: number): PdqMatch | undefined {
    return this.nearest(pdqFromHex(hex, this.scratchHash), maxDistance);
  }

  private collect(query: Uint8Array, maxDistance: number, out: PdqMatch[]): void {
    if (query.length !== PDQ_HASH_BYTES) throw new RangeError(`a PDQ hash has 32 bytes, got ${query.length}`);
    if (!Number.isInteger(maxDistance)) throw new RangeError(`maxDistance must be an integer, got ${maxDistance}`);
    for (let w = 0; w < 2 * HALF; w++) this.query[w] = wordAt(query, 4 * w);
    if (maxDistance < 0 || this.size === 0) return;
    if (maxDistance > MAX_INDEXED_DISTANCE) {
      this.scan(0, this.count, maxDistance, out);
      return;
    }
    // The tail is scanned linearly on every search, so it grows with the index (a sixteenth of it)
    // only up to MAX_TAIL: a bank import adding hashes between queries rebuilds a million-hash
    // index (~170 ms) every 16,384 hashes, not every 4,096, and a search scans at most 16,384 more
    // (~0.2 ms) until then, where a tail of 62,500 made a radius-31 query 9 times slower.
    const tailLimit = Math.max(this.rebuildAfter, Math.min(this.indexed >>> 4, MAX_TAIL));
    if (this.count - this.indexed >= tailLimit || this.removedCount > (this.count >>> 2) + this.rebuildAfter) this.build();
    if (this.indexed > 0) this.probe(maxDistance, out);
    this.scan(this.indexed, this.count, maxDistance, out);
  }

  /** Takes hash i at distance d; returns the bound for the rest of the search. */
  private keep(i: number, d: number, out: PdqMatch[], bound: number): number {
    const ref = this.refs[i]!;
    if (!this.bestOnly) {
      out.push({ ref, distance: d });
      return bound;
    }
    if (d < this.bestDistance || (d === this.bestDistance && ref < this.bestRef)) {
      this.bestDistance = d;
      this.bestRef = ref;
    }
    return this.bestDistance;
  }

  searchHex(hex: string, maxDistance: number): PdqMatch[] {
    return this.search(pdqFromHex(hex, this.scratchHash), maxDistance);
  }

  /** Brings every hash into the tables and drops removed ones. Searches call it when due. */
  build(): void {
    if (this.removedCount > 0) this.compact();
    const n = this.count;
    this.trimCapacity();
    if (n < MIN_TABLE_SIZE) {
      this.offsets = undefined;
      this.postings = new Uint8Array(0);
      this.indexed = 0;
      return;
    }
    const pb = n <= MAX_3_BYTE_POSITIONS ? 3 : 4;
    const offsets = this.offsets ?? new Uint32Array(CHUNKS * (BUCKETS + 1));
    offsets.fill(0);
    const postings = new Uint8Array(CHUNKS * n * pb);
    for (let c = 0; c < CHUNKS; c++) {
      const half = c < CHUNKS / 2 ? this.head : this.tail;
      const word = (c >>> 1) % HALF;
      const shift = c & 1 ? 0 : 16;
      const o = c * (BUCKETS + 1);
      for (let i = 0; i < n; i++) offsets[o + 1 + ((half[i * HALF + word]! >>> shift) & 0xffff)]!++;
      // Prefix sums: offsets[o + v] becomes the start of bucket v (within table c's region).
      let running = c * n;
      for (let v = 0; v <= BUCKETS; v++) {
        running += offsets[o + v]!;
        offsets[o + v] = running;
      }
      // Shift by one so that offsets[o + v + 1] is the fill cursor of bucket v; after the fill it
      // is the end of bucket v, i.e. the start of bucket v + 1 again.
      for (let v = BUCKETS; v > 0; v--) offsets[o + v] = offsets[o + v - 1]!;
      offsets[o] = c * n;
      for (let i = 0; i < n; i++) {
        const p = offsets[o + 1 + ((half[i * HALF + word]! >>> shift) & 0xffff)]!++ * pb;
        postings[p] = i & 0xff;
        postings[p + 1] = (i >>> 8) & 0xff;
        postings[p + 2] = (i >>> 16) & 0xff;
        if (pb === 4) postings[p + 3] = i >>> 24;
      }
    }
    this.offsets = offsets;
    this.postings = postings;
    this.postingBytes = pb;
    this.indexed = n;
  }

  private probe(maxDistance: number, out: PdqMatch[]): void {
    const offsets = this.offsets!;
    const postings = this.postings;
    const pb = this.postingBytes;
    const q = this.query;
    const chunkRadius = maxDistance >>> 4;
    const ranges = this.ranges;
    const rangeChunks = this.rangeChunks;

    // 1. Bucket ranges of every probed key: independent loads, so their misses overlap.
    let probes = 0;
    for (let c = 0; c < CHUNKS; c++) {
      const qc = (q[c >>> 1]! >>> (c & 1 ? 0 : 16)) & 0xffff;
      const o = c * (BUCKETS + 1);
      for (let flip = -1; flip < (chunkRadius === 0 ? 0 : 16); flip++) {
        const key = o + (flip < 0 ? qc : qc ^ (1 << flip));
        ranges[2 * probes] = offsets[key]!;
        ranges[2 * probes + 1] = offsets[key + 1]!;
        rangeChunks[probes++] = c;
      }
    }
    let total = 0;
    let touched = 0;
    for (let r = 0; r < probes; r++) {
      const from = ranges[2 * r]!;
      const to = ranges[2 * r + 1]!;
      total += to - from;
      if (to > from) touched ^= postings[from * pb]! ^ postings[to * pb - 1]!;
    }
    if (total > this.candidates.length) this.growCandidates(total);

    // 2. Candidate positions, and a touch of each candidate's first half.
    const candidates = this.candidates;
    const candidateChunks = this.candidateChunks;
    let n = 0;
    for (let r = 0; r < probes; r++) {
      const end = ranges[2 * r + 1]! * pb;
      const c = rangeChunks[r]!;
      for (let p = ranges[2 * r]! * pb; p < end; p += pb) {
        candidates[n] = postings[p]! | (postings[p + 1]! << 8) | (postings[p + 2]! << 16) | (pb === 4 ? postings[p + 3]! << 24 : 0);
        candidateChunks[n++] = c;
      }
    }
    const head = this.head;
    for (let k = 0; k < n; k++) touched ^= head[candidates[k]! * HALF]!;
    this.touchSink ^= touched;

    // 3. Verify: the first 128 bits reject nearly every non-match without reading the rest.
    const tail = this.tail;
    const removed = this.removedCount > 0 ? this.removed : undefined;
    const q0 = q[0]!;
    const q1 = q[1]!;
    const q2 = q[2]!;
    const q3 = q[3]!;
    let bound = maxDistance;
    for (let k = 0; k < n; k++) {
      const i = candidates[k]!;
      const base = i * HALF;
      let d = popcount32(head[base]! ^ q0) + popcount32(head[base + 1]! ^ q1) + popcount32(head[base + 2]! ^ q2) + popcount32(head[base + 3]! ^ q3);
      if (d > bound) continue;
      d += popcount32(tail[base]! ^ q[4]!) + popcount32(tail[base + 1]! ^ q[5]!) + popcount32(tail[base + 2]! ^ q[6]!) + popcount32(tail[base + 3]! ^ q[7]!);
      if (d > bound) continue;
      if (removed !== undefined && (removed[i >>> 5]! & (1 << (i & 31))) !== 0) continue;
      // A match near the query in several chunks is reported only from the first of them.
      if (this.firstNearChunk(i, chunkRadius) !== candidateChunks[k]) continue;
      bound = this.keep(i, d, out, bound);
    }
  }

  private growCandidates(n: number): void {
    const size = Math.max(n, this.candidates.length * 2);
    this.candidates = new Uint32Array(size);
    this.candidateChunks = new Uint8Array(size);
  }

  private firstNearChunk(i: number, chunkRadius: number): number {
    const q = this.query;
    for (let c = 0; c < CHUNKS; c++) {
      const w = c >>> 1;
      const word = w < HALF ? this.head[i * HALF + w]! : this.tail[i * HALF + w - HALF]!;
      if (popcount32(((word ^ q[w]!) >>> (c & 1 ? 0 : 16)) & 0xffff) <= chunkRadius) return c;
    }
    return -1;
  }

  private scan(from: number, to: number, maxDistance: number, out: PdqMatch[]): void {
    const head = this.head;
    const tail = this.tail;
    const q = this.query;
    let bound = maxDistance;
    for (let i = from; i < to; i++) {
      const base = i * HALF;
      let d = popcount32(head[base]! ^ q[0]!) + popcount32(head[base + 1]! ^ q[1]!) + popcount32(head[base + 2]! ^ q[2]!) + popcount32(head[base + 3]! ^ q[3]!);
      if (d > bound) continue;
      d += popcount32(tail[base]! ^ q[4]!) + popcount32(tail[base + 1]! ^ q[5]!) + popcount32(tail[base + 2]! ^ q[6]!) + popcount32(tail[base + 3]! ^ q[7]!);
      if (d <= bound && !this.isRemoved(i)) bound = this.keep(i, d, out, bound);
    }
  }

  private isRemoved(i: number): boolean {
    return this.removed !== undefined && (this.removed[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  private compact(): void {
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.isRemoved(i)) continue;
      if (kept !== i) {
        this.head.copyWithin(kept * HALF, i * HALF, (i + 1) * HALF);
        this.tail.copyWithin(kept * HALF, i * HALF, (i + 1) * HALF);
        this.refs[kept] = this.refs[i]!;
      }
      kept++;
    }
    this.count = kept;
    this.removed = undefined;
    this.removedCount = 0;
  }

  private ensureCapacity(n: number): void {
    const capacity = this.head.length / HALF;
    if (n <= capacity) return;
    // Grow by a quarter: the spare room stays a small share of the per-hash budget.
    this.resize(Math.max(n, capacity + (capacity >>> 2) + 1024));
  }

  private trimCapacity(): void {
    const capacity = this.head.length / HALF;
    if (capacity - this.count > this.count >>> 5) this.resize(this.count);
  }

  private resize(capacity: number): void {
    const keep = Math.min(this.count, capacity);
    const head = new Uint32Array(capacity * HALF);
    head.set(this.head.subarray(0, keep * HALF));
    const tail = new Uint32Array(capacity * HALF);
    tail.set(this.tail.subarray(0, keep * HALF));
    const refs = this.refs instanceof Float64Array ? new Float64Array(capacity) : new Uint32Array(capacity);
    refs.set(this.refs.subarray(0, keep));
    this.head = head;
    this.tail = tail;
    this.refs = refs;
    if (this.removed !== undefined) {
      const removed = new Uint32Array((capacity + 31) >>> 5);
      removed.set(this.removed.subarray(0, Math.min(this.removed.length, removed.length)));
      this.removed = removed;
    }
  }
}

function wordAt(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}
