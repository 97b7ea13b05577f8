import { hash } from 'node:crypto';

export interface SignalMemoOptions {
  /** How long a resolved result is reused; 30 seconds (docs/rules.md, "The condition model"). */
  readonly ttlMs?: number;
  /** Bound on the number of entries; the oldest entry is evicted first. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly promise: Promise<unknown>;
  /** Infinity while in flight: the TTL counts from when the result is known. */
  expiresAt: number;
}

type Args = { readonly [key: string]: unknown };

/** Inputs longer than this are keyed by a digest, so the memo does not retain large texts. */
const MAX_RAW_KEY_LENGTH = 256;
const RECENT_DIGESTS = 8;

/**
 * Memoizes signal results per organization, signal type, arguments and input value.
 * Concurrent identical lookups share one in-flight promise; rejections are never cached.
 */
export class SignalMemo {
  /**
   * Two generations instead of one insertion-ordered map: evicting one oldest key per insert
   * from a V8 Map walks over the tombstones of earlier deletions, which grows costly once full.
   * When the young generation is full it becomes the old one, and the previous old one is dropped.
   */
  private young = new Map<string, Entry>();
  private old = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly generationSize: number;
  private readonly now: () => number;
  /** Rule arguments are long-lived config objects: serialize each once. */
  private readonly argKeys = new WeakMap<object, string>();
  /**
   * Every rule of an item reads the same objects (the item itself, a field's array): each is
   * serialized once. A 1 MiB array read by 200 rules cost 85 ms per rule, 17.6 s on the evaluating
   * thread, when it was serialized for each. Inputs are never changed once evaluation reads them.
   */
  private readonly objectKeys = new WeakMap<object, string>();
  /** Every rule of an item hashes the same long texts: remember the last few digests. */
  private readonly recentTexts: string[] = new Array<string>(RECENT_DIGESTS).fill('');
  private readonly recentDigests: string[] = new Array<string>(RECENT_DIGESTS).fill('');
  private nextRecent = 0;

  constructor(options: SignalMemoOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.generationSize = Math.max(1, Math.floor((options.maxEntries ?? 50_000) / 2));
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  lookup<T>(orgId: string, signalType: string, args: Args, input: unknown, compute: () => Promise<T>): Promise<T> {
    const key = `${orgId}\u0000${signalType}\u0000${this.argsKey(args)}\u0000${this.inputKey(input)}`;
    const existing = this.young.get(key) ?? this.old.get(key);
    if (existing !== undefined) {
      if (existing.expiresAt > this.now()) return existing.promise as Promise<T>;
      this.forget(key, existing);
    }
    let promise: Promise<T>;
    try {
      promise = Promise.resolve(compute());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const entry: Entry = { promise, expiresAt: Number.POSITIVE_INFINITY };
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, entry);
    promise.then(
      () => {
        entry.expiresAt = this.now() + this.ttlMs;
      },
      () => this.forget(key, entry),
    );
    return promise;
  }

  private forget(key: string, entry: Entry): void {
    if (this.young.get(key) === entry) this.young.delete(key);
    if (this.old.get(key) === entry) this.old.delete(key);
  }

  /** Distinct prefixes keep a raw string, a JSON text and a digest from ever colliding. */
  private inputKey(input: unknown): string {
    if (typeof input === 'string') return input.length <= MAX_RAW_KEY_LENGTH ? `s${input}` : this.digest(input);
    if (typeof input === 'number' || typeof input === 'boolean') return `j${String(input)}`;
    const known = typeof input === 'object' && input !== null ? this.objectKeys.get(input) : undefined;
    if (known !== undefined) return known;
    const json = canonicalJson(input);
    const key = json.length <= MAX_RAW_KEY_LENGTH ? `j${json}` : this.digest(json);
    if (typeof input === 'object' && input !== null) this.objectKeys.set(input, key);
    return key;
  }

  private digest(text: string): string {
    for (let i = 0; i < RECENT_DIGESTS; i++) {
      if (this.recentTexts[i] === text) return this.recentDigests[i] as string;
    }
    const digest = `h${text.length}:${hash('sha256', text, 'base64')}`;
    this.recentTexts[this.nextRecent] = text;
    this.recentDigests[this.nextRecent] = digest;
    this.nextRecent = (this.nextRecent + 1) % RECENT_DIGESTS;
    return digest;
  }

  private argsKey(args: Args): string {
    let key = this.argKeys.get(args);
    if (key === undefined) {
      key = canonicalJson(args);
      this.argKeys.set(args, key);
    }
    return key;
  }
}

/** JSON with object keys sorted, so equal values give equal keys whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as { [key: string]: unknown };
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined || typeof item === 'function') continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}
