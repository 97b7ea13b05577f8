import { BlockList, isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';

export type WardenRole = 'all' | 'api' | 'worker';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface WardenConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly role: WardenRole;
  readonly eventStoreUrl: string | undefined;
  readonly mongoUrl: string | undefined;
  /** CIDR ranges exempt from the outbound private-address block (DESIGN.md section 6). */
  readonly outboundAllowlist: readonly string[];
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  /** Sustained requests per second per API key; 0 disables rate limiting. */
  readonly rateLimitPerSecond: number;
  readonly rateLimitBurst: number;
  /** `full` fsyncs every (grouped) commit; `normal` trades power-loss safety for speed. */
  readonly sqliteSync: 'full' | 'normal';
  /** Items accepted in one POST /api/v1/items/async/ request. */
  readonly maxItemsPerRequest: number;
  /** Whole-fetch deadline for an item's media (connect, redirects, download). */
  readonly mediaTimeoutMs: number;
  /** Raw WARDEN_SECRET_KEY; parsed by the keyring. */
  readonly secretKey: string | undefined;
  /** Delays before each retry of a failed callback, in ms (its length is the number of retries). */
  readonly callbackRetryScheduleMs: readonly number[];
  /**
   * Embedded profile: how long a worker's hold on a reactor lasts without renewal, and how often
   * it renews (a standby tries to take over as often). See docs/operations.md.
   */
  readonly reactorLease: { readonly ttlMs: number; readonly renewEveryMs: number };
}

/** A bad environment value: start-up stops with this one line. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const ROLES: readonly WardenRole[] = ['all', 'api', 'worker'];
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the environment; the only place that looks at process.env. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): WardenConfig {
  const dataDir = str(env, 'WARDEN_DATA_DIR') ?? './data';
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: str(env, 'HOST') ?? '0.0.0.0',
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    role: oneOf(env, 'WARDEN_ROLE', ROLES, 'all'),
    eventStoreUrl: url(env, 'WARDEN_EVENTSTORE_URL', ['kurrentdb:', 'kurrentdb+discover:', 'kurrent:', 'kurrent+discover:', 'kdb:', 'kdb+discover:', 'esdb:', 'esdb+discover:']),
    mongoUrl: url(env, 'WARDEN_MONGO_URL', ['mongodb:', 'mongodb+srv:']),
    outboundAllowlist: cidrList(env, 'WARDEN_OUTBOUND_ALLOWLIST'),
    logLevel: oneOf(env, 'WARDEN_LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: int(env, 'WARDEN_BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 1024 ** 3),
    rateLimitPerSecond: int(env, 'WARDEN_RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000),
    rateLimitBurst: int(env, 'WARDEN_RATE_LIMIT_BURST', 200, 1, 10_000_000),
    sqliteSync: oneOf(env, 'WARDEN_SQLITE_SYNC', ['full', 'normal'] as const, 'full'),
    maxItemsPerRequest: int(env, 'WARDEN_MAX_ITEMS_PER_REQUEST', 1000, 1, 100_000),
    mediaTimeoutMs: int(env, 'WARDEN_MEDIA_TIMEOUT_MS', 10_000, 100, 600_000),
    secretKey: str(env, 'WARDEN_SECRET_KEY'),
    callbackRetryScheduleMs: durationList(env, 'WARDEN_CALLBACK_RETRY_SCHEDULE', '10s,1m,5m,30m,2h', 5),
    reactorLease: reactorLease(env),
  };
}

function reactorLease(env: Env): WardenConfig['reactorLease'] {
  const [ttlMs] = durationList(env, 'WARDEN_REACTOR_LEASE_TTL', '10s', 1) as [number];
  const [renewEveryMs] = durationList(env, 'WARDEN_REACTOR_LEASE_RENEW', '3s', 1) as [number];
  if (ttlMs < 1000) throw new ConfigError('WARDEN_REACTOR_LEASE_TTL', `must be at least 1s, got ${ttlMs}ms`);
  if (renewEveryMs * 2 > ttlMs) {
    throw new ConfigError('WARDEN_REACTOR_LEASE_RENEW', `must be at most half of WARDEN_REACTOR_LEASE_TTL (${ttlMs}ms), got ${renewEveryMs}ms`);
  }
  return { ttlMs, renewEveryMs };
}

function str(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of the schemes ${protocols.map((p) => p + '//').join(', ')}`);
  }
  return raw;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `10s,1m,5m`: one to `maxEntries` positive durations in ms, s, m or h, each at most a day. */
function durationList(env: Env, name: string, fallback: string, maxEntries: number): number[] {
  const raw = str(env, name) ?? fallback;
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.length > maxEntries) throw new ConfigError(name, `has at most ${maxEntries} entries, got ${entries.length}`);
  return entries.map((entry) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(entry);
    const ms = match ? Math.round(Number(match[1]) * DURATION_UNITS[match[2]!]!) : NaN;
    if (!(ms >= 1 && ms <= 86_400_000)) {
      throw new ConfigError(name, `has an invalid duration "${entry}" (expected e.g. 500ms, 10s, 5m or 2h, at most 24h)`);
    }
    return ms;
  });
}

function cidrList(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const ranges = raw.split(',').map((r) => r.trim()).filter((r) => r !== '');
  for (const range of ranges) {
    const [address, bits, extra] = range.split('/');
    const family = isIP(address ?? '');
    const prefix = Number(bits);
    if (
      extra !== undefined ||
      family === 0 ||
      bits === undefined ||
      !/^\d+$/.test(bits) ||
      prefix > (family === 4 ? 32 : 128)
    ) {
      throw new ConfigError(name, `has an invalid CIDR range "${range}" (expected e.g. 127.0.0.0/8)`);
    }
  }
  return ranges;
}

/** The allowlist as a matcher, for the guarded outbound client. */
export function allowlistMatcher(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/') as [string, string];
    list.addSubnet(address, Number(bits), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

export const WARDEN_CONFIG = Symbol('WardenConfig');

/** The environment for `${NAME}` references in configuration files (read here, like all of it). */
export function environment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
