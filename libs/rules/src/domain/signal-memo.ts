import { hash } from 'node:crypto';

export interface SignalMemoOptions {
  /** How long a resolved result is reused; org-config.md says 30 seconds. */
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

/**
 * Memoizes signal results per organization, signal type, arguments and input value.
 * Concurrent identical lookups share one in-flight promise; rejections are never cached.
 */
export class SignalMemo {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Rule arguments are long-lived config objects: serialize each once. */
  private readonly argKeys = new WeakMap<object, string>();

  constructor(options: SignalMemoOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = Math.max(1, options.maxEntries ?? 50_000);
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  lookup<T>(orgId: string, signalType: string, args: Args, input: unknown, compute: () => Promise<T>): Promise<T> {
    const key = `${orgId}\u0000${signalType}\u0000${this.argsKey(args)}\u0000${inputKey(input)}`;
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      if (existing.expiresAt > this.now()) return existing.promise as Promise<T>;
      this.entries.delete(key);
    }
    let promise: Promise<T>;
    try {
      promise = Promise.resolve(compute());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const entry: Entry = { promise, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    promise.then(
      () => {
        if (this.entries.get(key) === entry) entry.expiresAt = this.now() + this.ttlMs;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return promise;
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

/** Distinct prefixes keep a raw string, a JSON text and a digest from ever colliding. */
function inputKey(input: unknown): string {
  if (typeof input === 'string') {
    return input.length <= MAX_RAW_KEY_LENGTH ? `s${input}` : `h${input.length}:${hash('sha256', input, 'base64')}`;
  }
  if (typeof input === 'number' || typeof input === 'boolean') return `j${String(input)}`;
  const json = canonicalJson(input);
  return json.length <= MAX_RAW_KEY_LENGTH ? `j${json}` : `h${json.length}:${hash('sha256', json, 'base64')}`;
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
