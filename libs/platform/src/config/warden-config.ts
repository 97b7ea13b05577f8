import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

export type WardenRole = 'all' | 'api' | 'worker';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** Where rate-limit counters live: this process, or MongoDB shared by every api instance. */
export type RateLimitStoreKind = 'memory' | 'mongodb';

export interface WardenConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly role: WardenRole;
  readonly eventStoreUrl: string | undefined;
  readonly mongoUrl: string | undefined;
  /** How long start-up waits for MongoDB before it fails with one line (docs/configuration.md). */
  readonly mongoConnectTimeoutMs: number;
  /** CIDR ranges exempt from the outbound private-address block (docs/architecture.md, "Outbound HTTP"). */
  readonly outboundAllowlist: readonly string[];
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  /** Sustained requests per second per API key; 0 disables rate limiting. */
  readonly rateLimitPerSecond: number;
  readonly rateLimitBurst: number;
  readonly rateLimitStore: RateLimitStoreKind;
  /** `full` fsyncs every (grouped) commit; `normal` trades power-loss safety for speed. */
  readonly sqliteSync: 'full' | 'normal';
  /**
   * Where a process that runs projections (worker, all) runs the read models nothing on the write
   * path waits for: `on`, on a thread of their own (a second core) from the start; `auto`, on that
   * thread once the log gets busy; `off`, beside the reactors. docs/architecture.md, "The read-model thread".
   */
  readonly readModelThread: 'auto' | 'on' | 'off';
  /**
   * `all` role only: `on`, the reactors and projections run on a thread of their own, a worker
   * role beside the HTTP thread; `off`, on the event loop that serves requests.
   * docs/architecture.md, "The background thread".
   */
  readonly backgroundThread: 'on' | 'off';
  /** Items accepted in one POST /api/v1/items/async/ request. */
  readonly maxItemsPerRequest: number;
  /** Whole-fetch deadline for an item's media (connect, redirects, download). */
  readonly mediaTimeoutMs: number;
  /** Raw WARDEN_SECRET_KEY; parsed by the keyring. */
  readonly secretKey: string | undefined;
  /** WARDEN_SECRET_KEY_FILE as an absolute path: the keyring reads and checks the file. */
  readonly secretKeyFile: string | undefined;
  /** Delays before each retry of a failed callback, in ms (its length is the number of retries). */
  readonly callbackRetryScheduleMs: readonly number[];
  /**
   * Embedded profile: how long a worker's hold on a reactor lasts without renewal, and how often
   * it renews (a standby tries to take over as often). See docs/operations.md.
   */
  readonly reactorLease: { readonly ttlMs: number; readonly renewEveryMs: number };
  /** How long a shutdown waits for open connections to finish before it closes them. */
  readonly shutdownDrainMs: number;
  /** Memory budget of the process's cache of folded aggregate states, in bytes (docs/architecture.md, "Streams"). */
  readonly aggregateCacheBytes: number;
  /** A long stream's state is snapshotted every this many events. */
  readonly snapshotEvery: number;
  /** The KurrentDB server's MaxAppendSize, in bytes: no snapshot larger is written (docs/operations.md, "KurrentDB's append limits"). */
  readonly kurrentDbMaxAppendBytes: number;
  /**
   * Idempotency-Key records: how long a key's response is kept (from its first request), and how
   * long a request holds its key before another may take over (a process that died mid-request).
   */
  readonly idempotency: { readonly retentionMs: number; readonly leaseMs: number };
  /** Deepest nesting of objects and arrays accepted in a JSON request body (the body itself is level 1). */
  readonly maxJsonDepth: number;
  /** Largest string (value or member name) accepted in a JSON request body, in UTF-8 bytes. */
  readonly maxStringBytes: number;
  /** Most members one object of a JSON request body may have. */
  readonly maxObjectMembers: number;
  /** Most values in one JSON body (WARDEN_MAX_JSON_VALUES): more is a 413 before anything walks the body. */
  readonly maxJsonValues: number;
  /** Largest body of a route reached without a credential (signing in, accepting an invitation), in bytes. */
  readonly publicBodyLimitBytes: number;
  /** How long a client may take to send a whole request (WARDEN_REQUEST_TIMEOUT): past it, 408 and the connection closes. */
  readonly requestTimeoutMs: number;
  /** Connections one client network may hold open at once (WARDEN_MAX_CONNECTIONS_PER_CLIENT); 0: no cap. */
  readonly maxConnectionsPerClient: number;
  /**
   * What the SAML ACS reads of an IdP's form post (docs/sso.md, "Limits"): the body, in bytes, and
   * the elements of the response's XML, counted before any XML is parsed; and whether it accepts
   * SHA-1 signatures and digests (refused by default).
   */
  readonly saml: { readonly bodyLimitBytes: number; readonly maxElements: number; readonly allowSha1: boolean };
  /** Largest submitted item, as the UTF-8 bytes of its JSON serialization. */
  readonly maxItemBytes: number;
  /** scrypt's log2 N for new console password hashes (WARDEN_PASSWORD_HASH_COST; 15 unless a test suite lowers it). */
  readonly passwordHashCost: number;
  /**
   * How recent a console sign-in must be for the changes that could take an organization over (API
   * keys, users and roles, second factors, SSO, bulk actions): older sessions are asked to sign in
   * again (WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS; docs/console-access.md, "Recent sign-in").
   */
  readonly consoleRecentSignInSeconds: number;
  /**
   * How long a console session may go unused before it is refused (WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS;
   * docs/console-access.md, "Sessions"); 0: only the session's 30-day life ends it.
   */
  readonly consoleIdleTimeoutSeconds: number;
  /** Failed authentications (missing or unknown API key) per client address, sustained per minute; 0 disables. */
  readonly authFailuresPerMinute: number;
  /** Failed authentications an address may make at once before the sustained rate applies. */
  readonly authFailureBurst: number;
  /**
   * Where people reach this deployment (scheme, host, port, no path): the console's origin for the
   * CSRF check, the base of SAML and invitation URLs. `http://` marks a development deployment
   * without TLS, whose session cookie is not `Secure`.
   */
  readonly publicUrl: string;
  /**
   * CIDR ranges of the reverse proxies in front of this server: a request from one of them is
   * taken to come from the address its `X-Forwarded-For` names (and its protocol from
   * `X-Forwarded-Proto`). Empty: the connection's own address, whatever the headers say.
   */
  readonly trustedProxies: readonly string[];
  /** How long a moderator who skipped a review job is not offered it again. */
  readonly reviewSkipSeconds: number;
  /** How often the worker signs a checkpoint of each organization's audit chain that moved. */
  readonly auditCheckpointSeconds: number;
  /** How often a server writes the last use of the API keys it authenticated (kept in memory meanwhile). */
  readonly apiKeyUsageFlushSeconds: number;
  /** Where `warden audit anchor --post` sends an organization's signed chain head (docs/audit.md, "Anchors"). */
  readonly auditAnchorUrl: string | undefined;
  /**
   * A server over a replayed data directory (`warden replay`): no workers, and every request that
   * would change something answers 503, except signing in and out of the console.
   */
  readonly readOnly: boolean;
  /**
   * The bearer token `GET /metrics` asks for (WARDEN_METRICS_TOKEN); unset, the metrics are open to
   * whoever reaches the port, as Prometheus's default scrape expects.
   */
  readonly metricsToken: string | undefined;
  /** The inbound topic ITEM_SUBMISSION_EVENT on NATS JetStream (docs/inbound-topic.md); undefined: off. */
  readonly inboundTopic: InboundTopicConfig | undefined;
}

export interface InboundTopicConfig {
  /** Broker URLs (`nats://…`, `tls://…`), tried in turn. May carry credentials: never logged. */
  readonly servers: readonly string[];
  /** Absolute path of the file holding Warden's own broker credentials (read and checked at start), or none. */
  readonly credentialsFile: string | undefined;
  /** Subjects are `<prefix>.<orgId>.items`; dead letters `<prefix>.<orgId>.items.dead-letter`. */
  readonly subjectPrefix: string;
  /** The JetStream stream holding the subjects (its dead letters: `<stream>_DEAD_LETTER`). */
  readonly stream: string;
  /** Names the durable pull consumers every worker shares: `<consumer>-<orgId>`, one per organization's subject. */
  readonly consumer: string;
  /** Messages a worker handles at once, shared among organizations (FairSlots). */
  readonly batch: number;
  /** How long the broker waits for an acknowledgement before delivering a message again. */
  readonly ackWaitMs: number;
}

export interface ConfigProblem {
  readonly variable: string;
  readonly problem: string;
}

/** Bad environment values: start-up stops with this one line, naming every bad variable. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(variable: string, problem: string);
  constructor(problems: readonly ConfigProblem[]);
  constructor(variableOrProblems: string | readonly ConfigProblem[], problem = '') {
    const problems = typeof variableOrProblems === 'string' ? [{ variable: variableOrProblems, problem }] : variableOrProblems;
    super(`Invalid configuration: ${problems.map((p) => `${p.variable} ${p.problem}`).join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const ROLES = ['all', 'api', 'worker'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const EVENTSTORE_SCHEMES = ['kurrentdb:', 'kurrentdb+discover:', 'kurrent:', 'kurrent+discover:', 'kdb:', 'kdb+discover:', 'esdb:', 'esdb+discover:'];
const MONGO_SCHEMES = ['mongodb:', 'mongodb+srv:'];

// Messages name the variable (prefixed later) and echo the bad value, except for the variables
// that may hold a secret (the connection strings carry credentials, the key is the key).

const wholeNumber = (fallback: number, min: number, max: number) => {
  const outside = { error: (iss: { input?: unknown }) => `must be between ${min} and ${max}, got ${String(iss.input)}` };
  return z
    .string()
    .regex(/^\d+$/, { error: (iss) => `must be a whole number, got "${String(iss.input)}"` })
    .transform(Number)
    .pipe(z.number().min(min, outside).max(max, outside))
    .default(fallback);
};

const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z.enum(values, { error: (iss) => `must be one of ${values.join(', ')}, got "${String(iss.input)}"` }).default(fallback);

const connectionUrl = (schemes: readonly string[]) =>
  z
    .string()
    .refine((raw) => URL.canParse(raw), { error: 'is not a valid URL', abort: true })
    .refine((raw) => schemes.includes(new URL(raw).protocol), {
      error: `must use one of the schemes ${schemes.map((s) => s + '//').join(', ')}`,
    })
    .optional();

/** NATS subject tokens (no wildcards, no spaces), and JetStream's names of streams and consumers. */
const SUBJECT_PREFIX = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,7}$/;
const JETSTREAM_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NATS_SCHEMES = ['nats:', 'tls:'];

const commaList = (raw: string) => raw.split(',').map((entry) => entry.trim());

/** `127.0.0.0/8`, `::1/128`: a plain address (no `127.1` shorthands) and a prefix that fits it. */
const cidrRange = z.string().refine((range) => ipaddr.isValidCIDR(range) && isIP(range.slice(0, range.lastIndexOf('/'))) !== 0, {
  error: (iss) => `has an invalid CIDR range "${String(iss.input)}" (expected e.g. 127.0.0.0/8)`,
});

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** `10s`, `500ms`, `1.5h`: positive, at most a day. */
const duration = z.string().transform((entry, ctx) => {
  const match = DURATION.exec(entry);
  const ms = match ? Math.round(Number(match[1]) * DURATION_UNITS[match[2]!]!) : NaN;
  if (ms >= 1 && ms <= 86_400_000) return ms;
  ctx.addIssue({
    code: 'custom',
    message: `has an invalid duration "${entry}" (expected e.g. 500ms, 10s, 5m or 2h, at most 24h)`,
  });
  return z.NEVER;
});

/** A duration with a default, at least a second (leases: a shorter one could not be renewed in time). */
const durationOfAtLeastASecond = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .pipe(duration)
    .refine((ms) => ms >= 1000, { error: (iss) => `must be at least 1s, got ${String(iss.input)}ms` });

const durationList = (fallback: string, maxEntries: number) =>
  z
    .string()
    .default(fallback)
    .transform(commaList)
    .pipe(z.array(duration).max(maxEntries, { error: (iss) => `has at most ${maxEntries} entries, got ${(iss.input as unknown[]).length}` }));

/** The same rule the keyring applies; checked here too so a bad key is listed with the rest. */
const secretKeyList = z
  .string()
  .refine(
    (raw) => {
      const keys = commaList(raw).filter((k) => k !== '');
      return keys.length > 0 && keys.every((k) => Buffer.from(k, 'base64').length === 32);
    },
    { error: 'must be a comma-separated list of base64-encoded 32-byte keys' },
  )
  .optional();

/** Items per POST /api/v1/items/async/ request unless WARDEN_MAX_ITEMS_PER_REQUEST says otherwise. */
export const DEFAULT_MAX_ITEMS_PER_REQUEST = 1000;
/** The most WARDEN_MAX_ITEMS_PER_REQUEST may allow. */
export const MAX_ITEMS_PER_REQUEST_CEILING = 100_000;

/** scrypt's log2 N for console passwords (docs/configuration.md): the OWASP figure; lower only for test suites. */
export const DEFAULT_PASSWORD_HASH_COST = 15;

/**
 * Every environment variable Warden reads, with its default and its validation. docs/configuration.md
 * documents each of them (a test keeps the two in step). Values are trimmed; empty means unset.
 */
const ENVIRONMENT = z
  .object({
    PORT: wholeNumber(3000, 0, 65535),
    HOST: z.string().default('0.0.0.0'),
    WARDEN_DATA_DIR: z.string().default('./data'),
    WARDEN_ROLE: oneOf(ROLES, 'all'),
    WARDEN_EVENTSTORE_URL: connectionUrl(EVENTSTORE_SCHEMES),
    WARDEN_MONGO_URL: connectionUrl(MONGO_SCHEMES),
    WARDEN_MONGO_CONNECT_TIMEOUT_MS: wholeNumber(8_000, 100, 60_000),
    WARDEN_OUTBOUND_ALLOWLIST: z
      .string()
      .default('')
      .transform((raw) => commaList(raw).filter((r) => r !== ''))
      .pipe(z.array(cidrRange)),
    WARDEN_LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
    WARDEN_BODY_LIMIT_BYTES: wholeNumber(10 * 1024 * 1024, 1024, 1024 ** 3),
    WARDEN_RATE_LIMIT_PER_SECOND: wholeNumber(100, 0, 1_000_000),
    WARDEN_RATE_LIMIT_BURST: wholeNumber(200, 1, 10_000_000),
    WARDEN_RATE_LIMIT_STORE: z.enum(['memory', 'mongodb'], { error: (iss) => `must be memory or mongodb, got "${String(iss.input)}"` }).optional(),
    WARDEN_SQLITE_SYNC: oneOf(['full', 'normal'], 'full'),
    WARDEN_READ_MODEL_THREAD: oneOf(['auto', 'on', 'off'], 'auto'),
    WARDEN_BACKGROUND_THREAD: oneOf(['on', 'off'], 'on'),
    WARDEN_MAX_ITEMS_PER_REQUEST: wholeNumber(DEFAULT_MAX_ITEMS_PER_REQUEST, 1, MAX_ITEMS_PER_REQUEST_CEILING),
    WARDEN_MEDIA_TIMEOUT_MS: wholeNumber(10_000, 100, 600_000),
    WARDEN_SECRET_KEY: secretKeyList,
    WARDEN_SECRET_KEY_FILE: z.string().optional(),
    WARDEN_CALLBACK_RETRY_SCHEDULE: durationList('10s,1m,5m,30m,2h', 5),
    WARDEN_REACTOR_LEASE_TTL: durationOfAtLeastASecond('10s'),
    WARDEN_SHUTDOWN_DRAIN: durationOfAtLeastASecond('10s'),
    WARDEN_REACTOR_LEASE_RENEW: z.string().default('3s').pipe(duration),
    WARDEN_AGGREGATE_CACHE_MB: wholeNumber(64, 1, 1024 * 1024),
    WARDEN_SNAPSHOT_EVERY: wholeNumber(100, 10, 1_000_000),
    WARDEN_KURRENTDB_MAX_APPEND_BYTES: wholeNumber(1024 * 1024, 64 * 1024, 1024 ** 3),
    WARDEN_IDEMPOTENCY_RETENTION: z.string().default('24h').pipe(duration),
    WARDEN_IDEMPOTENCY_LEASE: durationOfAtLeastASecond('60s'),
    // At most 256 levels: the validators behind the parser walk bodies recursively, and must
    // stay far from the stack limit (about 1,500 levels overflowed them).
    WARDEN_MAX_JSON_DEPTH: wholeNumber(64, 4, 256),
    WARDEN_MAX_STRING_BYTES: wholeNumber(256 * 1024, 1024, 1024 ** 3),
    WARDEN_MAX_OBJECT_MEMBERS: wholeNumber(10_000, 16, 10_000_000),
    WARDEN_MAX_JSON_VALUES: wholeNumber(1_000_000, 1_000, 1_000_000_000),
    WARDEN_PUBLIC_BODY_LIMIT_BYTES: wholeNumber(64 * 1024, 1024, 1024 ** 3),
    WARDEN_REQUEST_TIMEOUT: durationOfAtLeastASecond('60s'),
    WARDEN_MAX_CONNECTIONS_PER_CLIENT: wholeNumber(256, 0, 1_000_000),
    // A response with many groups runs to tens of KB, past the public limit; its own limits keep
    // what a stranger's post can cost bounded (verification is superlinear in the elements).
    WARDEN_SAML_BODY_LIMIT_BYTES: wholeNumber(256 * 1024, 16 * 1024, 16 * 1024 * 1024),
    WARDEN_SAML_MAX_ELEMENTS: wholeNumber(1_000, 100, 100_000),
    WARDEN_SAML_ALLOW_SHA1: oneOf(['true', 'false'], 'false'),
    WARDEN_MAX_ITEM_BYTES: wholeNumber(1024 * 1024, 1024, 1024 ** 3),
    WARDEN_PASSWORD_HASH_COST: wholeNumber(DEFAULT_PASSWORD_HASH_COST, 10, 20),
    WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS: wholeNumber(15 * 60, 0, 30 * 24 * 60 * 60),
    WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS: wholeNumber(30 * 60, 0, 30 * 24 * 60 * 60),
    WARDEN_AUTH_FAILURES_PER_MINUTE: wholeNumber(10, 0, 1_000_000),
    WARDEN_AUTH_FAILURE_BURST: wholeNumber(20, 1, 1_000_000),
    WARDEN_TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((raw) => commaList(raw).filter((r) => r !== ''))
      .pipe(z.array(cidrRange)),
    WARDEN_PUBLIC_URL: z
      .string()
      .refine((raw) => URL.canParse(raw) && ['http:', 'https:'].includes(new URL(raw).protocol), {
        error: 'must be an http:// or https:// URL',
        abort: true,
      })
      .refine((raw) => ['', '/'].includes(new URL(raw).pathname) && new URL(raw).search === '' && new URL(raw).hash === '', {
        error: 'must be an origin only (scheme, host and port), without a path, query or fragment',
      })
      .optional(),
    WARDEN_REVIEW_SKIP_SECONDS: wholeNumber(600, 0, 30 * 24 * 3600),
    WARDEN_AUDIT_CHECKPOINT_SECONDS: wholeNumber(60, 1, 24 * 3600),
    WARDEN_API_KEY_USAGE_FLUSH_SECONDS: wholeNumber(10, 1, 3600),
    WARDEN_AUDIT_ANCHOR_URL: z
      .string()
      .optional()
      .refine((raw) => raw === undefined || (URL.canParse(raw) && ['http:', 'https:'].includes(new URL(raw).protocol)), {
        error: 'must be an http(s) URL',
      }),
    WARDEN_READ_ONLY: oneOf(['true', 'false'], 'false'),
    // Its value is never echoed: it is a credential.
    WARDEN_METRICS_TOKEN: z
      .string()
      .refine((raw) => /^[\x21-\x7e]{16,512}$/.test(raw), { error: 'must be 16 to 512 printable ASCII characters without spaces' })
      .optional(),
    WARDEN_NATS_URL: z
      .string()
      .transform((raw) => commaList(raw).filter((u) => u !== ''))
      .refine((urls) => urls.length > 0 && urls.every((u) => URL.canParse(u) && NATS_SCHEMES.includes(new URL(u).protocol)), {
        error: 'must be a comma-separated list of nats:// or tls:// URLs',
      })
      .optional(),
    WARDEN_NATS_CREDENTIALS_FILE: z.string().optional(),
    WARDEN_NATS_SUBJECT_PREFIX: z
      .string()
      .default('warden')
      .refine((raw) => SUBJECT_PREFIX.test(raw), {
        error: (iss) => `must be NATS subject tokens (letters, digits, - and _, joined by .), got "${String(iss.input)}"`,
      }),
    WARDEN_NATS_STREAM: z
      .string()
      .default('WARDEN_ITEMS')
      .refine((raw) => JETSTREAM_NAME.test(raw), { error: (iss) => `must be 1 to 64 letters, digits, - and _, got "${String(iss.input)}"` }),
    WARDEN_NATS_CONSUMER: z
      .string()
      .default('warden-items')
      .refine((raw) => JETSTREAM_NAME.test(raw), { error: (iss) => `must be 1 to 64 letters, digits, - and _, got "${String(iss.input)}"` }),
    WARDEN_NATS_BATCH: wholeNumber(100, 1, 1000),
    WARDEN_NATS_ACK_WAIT: durationOfAtLeastASecond('30s'),
  })
  // At most a third: a holder stops a third of the lease before it expires, so its next renewal
  // must come before that point or every renewal would stop and restart the reactor.
  .refine((env) => !(env.WARDEN_REACTOR_LEASE_RENEW * 3 > env.WARDEN_REACTOR_LEASE_TTL), {
    path: ['WARDEN_REACTOR_LEASE_RENEW'],
    error: 'must be at most a third of WARDEN_REACTOR_LEASE_TTL',
  })
  // Two sources of one keyring: whichever won, the other would be silently ignored.
  .refine((env) => env.WARDEN_SECRET_KEY === undefined || env.WARDEN_SECRET_KEY_FILE === undefined, {
    path: ['WARDEN_SECRET_KEY_FILE'],
    error: 'is set together with WARDEN_SECRET_KEY: set only one of them',
    when: () => true,
  })
  // The broker's credentials without its URL: the topic stays off and the file is never read, so
  // an operator who forgot the URL would get no word of it.
  .refine((env) => env.WARDEN_NATS_CREDENTIALS_FILE === undefined || env.WARDEN_NATS_URL !== undefined, {
    path: ['WARDEN_NATS_CREDENTIALS_FILE'],
    error: 'is set without WARDEN_NATS_URL: the inbound topic is off, so the file would never be read; set the URL or unset this',
    when: () => true,
  })
  .refine((env) => env.WARDEN_RATE_LIMIT_STORE !== 'mongodb' || env.WARDEN_MONGO_URL !== undefined, {
    path: ['WARDEN_RATE_LIMIT_STORE'],
    error: 'is mongodb, which needs WARDEN_MONGO_URL',
    // Checked even when other variables are bad, so that one start-up lists every problem.
    when: () => true,
  });

/** The names of every variable Warden reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ENVIRONMENT.shape);

/** Reads and validates the environment; the only place that looks at process.env. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): WardenConfig {
  const given: Record<string, string | undefined> = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name]?.trim();
    given[name] = value === '' ? undefined : value;
  }
  const parsed = ENVIRONMENT.safeParse(given);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? 'environment'), problem: issue.message })));
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: isAbsolute(e.WARDEN_DATA_DIR) ? e.WARDEN_DATA_DIR : resolve(cwd, e.WARDEN_DATA_DIR),
    role: e.WARDEN_ROLE,
    eventStoreUrl: e.WARDEN_EVENTSTORE_URL,
    mongoUrl: e.WARDEN_MONGO_URL,
    mongoConnectTimeoutMs: e.WARDEN_MONGO_CONNECT_TIMEOUT_MS,
    outboundAllowlist: e.WARDEN_OUTBOUND_ALLOWLIST,
    logLevel: e.WARDEN_LOG_LEVEL,
    bodyLimitBytes: e.WARDEN_BODY_LIMIT_BYTES,
    rateLimitPerSecond: e.WARDEN_RATE_LIMIT_PER_SECOND,
    rateLimitBurst: e.WARDEN_RATE_LIMIT_BURST,
    // Several api instances share one MongoDB, so their limits are shared there by default.
    rateLimitStore: e.WARDEN_RATE_LIMIT_STORE ?? (e.WARDEN_MONGO_URL === undefined ? 'memory' : 'mongodb'),
    sqliteSync: e.WARDEN_SQLITE_SYNC,
    readModelThread: e.WARDEN_READ_MODEL_THREAD,
    backgroundThread: e.WARDEN_BACKGROUND_THREAD,
    maxItemsPerRequest: e.WARDEN_MAX_ITEMS_PER_REQUEST,
    mediaTimeoutMs: e.WARDEN_MEDIA_TIMEOUT_MS,
    secretKey: e.WARDEN_SECRET_KEY,
    secretKeyFile: e.WARDEN_SECRET_KEY_FILE === undefined ? undefined : resolve(cwd, e.WARDEN_SECRET_KEY_FILE),
    callbackRetryScheduleMs: e.WARDEN_CALLBACK_RETRY_SCHEDULE,
    reactorLease: { ttlMs: e.WARDEN_REACTOR_LEASE_TTL, renewEveryMs: e.WARDEN_REACTOR_LEASE_RENEW },
    shutdownDrainMs: e.WARDEN_SHUTDOWN_DRAIN,
    aggregateCacheBytes: e.WARDEN_AGGREGATE_CACHE_MB * 1024 * 1024,
    kurrentDbMaxAppendBytes: e.WARDEN_KURRENTDB_MAX_APPEND_BYTES,
    snapshotEvery: e.WARDEN_SNAPSHOT_EVERY,
    idempotency: { retentionMs: e.WARDEN_IDEMPOTENCY_RETENTION, leaseMs: e.WARDEN_IDEMPOTENCY_LEASE },
    maxJsonDepth: e.WARDEN_MAX_JSON_DEPTH,
    maxStringBytes: e.WARDEN_MAX_STRING_BYTES,
    maxObjectMembers: e.WARDEN_MAX_OBJECT_MEMBERS,
    maxJsonValues: e.WARDEN_MAX_JSON_VALUES,
    publicBodyLimitBytes: e.WARDEN_PUBLIC_BODY_LIMIT_BYTES,
    requestTimeoutMs: e.WARDEN_REQUEST_TIMEOUT,
    maxConnectionsPerClient: e.WARDEN_MAX_CONNECTIONS_PER_CLIENT,
    saml: {
      bodyLimitBytes: e.WARDEN_SAML_BODY_LIMIT_BYTES,
      maxElements: e.WARDEN_SAML_MAX_ELEMENTS,
      allowSha1: e.WARDEN_SAML_ALLOW_SHA1 === 'true',
    },
    maxItemBytes: e.WARDEN_MAX_ITEM_BYTES,
    passwordHashCost: e.WARDEN_PASSWORD_HASH_COST,
    consoleRecentSignInSeconds: e.WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS,
    consoleIdleTimeoutSeconds: e.WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS,
    authFailuresPerMinute: e.WARDEN_AUTH_FAILURES_PER_MINUTE,
    authFailureBurst: e.WARDEN_AUTH_FAILURE_BURST,
    // Unset: a development deployment reached on this machine (see docs/configuration.md).
    trustedProxies: e.WARDEN_TRUSTED_PROXIES,
    publicUrl: e.WARDEN_PUBLIC_URL === undefined ? `http://localhost:${e.PORT}` : new URL(e.WARDEN_PUBLIC_URL).origin,
    reviewSkipSeconds: e.WARDEN_REVIEW_SKIP_SECONDS,
    auditCheckpointSeconds: e.WARDEN_AUDIT_CHECKPOINT_SECONDS,
    apiKeyUsageFlushSeconds: e.WARDEN_API_KEY_USAGE_FLUSH_SECONDS,
    auditAnchorUrl: e.WARDEN_AUDIT_ANCHOR_URL,
    readOnly: e.WARDEN_READ_ONLY === 'true',
    metricsToken: e.WARDEN_METRICS_TOKEN,
    inboundTopic:
      e.WARDEN_NATS_URL === undefined
        ? undefined
        : {
            servers: e.WARDEN_NATS_URL,
            credentialsFile: e.WARDEN_NATS_CREDENTIALS_FILE === undefined ? undefined : resolve(cwd, e.WARDEN_NATS_CREDENTIALS_FILE),
            subjectPrefix: e.WARDEN_NATS_SUBJECT_PREFIX,
            stream: e.WARDEN_NATS_STREAM,
            consumer: e.WARDEN_NATS_CONSUMER,
            batch: e.WARDEN_NATS_BATCH,
            ackWaitMs: e.WARDEN_NATS_ACK_WAIT,
          },
  };
}

export const WARDEN_CONFIG = Symbol('WardenConfig');

/** The environment for `${NAME}` references in configuration files (read here, like all of it). */
export function environment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
