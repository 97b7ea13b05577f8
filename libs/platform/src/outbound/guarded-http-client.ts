import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, buildConnector } from 'undici';
import { CLIENT_MANAGED_HEADERS } from '#warden/kernel';

/**
 * The one client for outbound HTTP (docs/architecture.md, "Outbound HTTP"): media fetches, callbacks, external signals.
 *
 * Every connection is vetted on the address it actually connects to: host names are resolved by a
 * `lookup` hook handed to undici's connector (so `net.connect` only ever sees vetted addresses,
 * while the Host header and TLS servername keep the original name), literal IPs are vetted before
 * the connector opens a socket. Every special-purpose range ipaddr.js knows (private, loopback,
 * link-local, unique-local, CGNAT, multicast, reserved, documentation, ...) is refused unless the
 * operator's allowlist contains the address; cloud-metadata addresses are refused even then.
 */

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request: DNS lookup, connection, redirects and body download. */
  timeoutMs?: number;
  /** One connection attempt (DNS lookup, TCP and TLS handshakes); never beyond timeoutMs for the caller. */
  connectTimeoutMs?: number;
  /** Response size limit. */
  maxBytes?: number;
  /**
   * The caller has no use for the response body: its bytes are counted against maxBytes and
   * dropped as they arrive, and the response's body is empty. A receiver answering each callback
   * with a megabyte otherwise had every one kept and joined on the thread that sends the others'
   * (a hunt: another organization's callbacks p50 10 → 298-495 ms at 400 a second).
   */
  discardBody?: boolean;
  /** GET only follows redirects; POST returns the 3xx response as is. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The final URL, after redirects. */
  url: string;
}

export type OutboundFailure = 'refused-address' | 'invalid-url' | 'timeout' | 'too-large' | 'too-many-redirects' | 'network';

export class OutboundError extends Error {
  readonly reason: OutboundFailure;

  constructor(reason: OutboundFailure, message: string = defaultMessage(reason), options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundError';
    this.reason = reason;
  }
}

function defaultMessage(reason: OutboundFailure): string {
  switch (reason) {
    case 'refused-address':
      return 'Outbound request refused: the target address is not allowed';
    case 'invalid-url':
      return 'Outbound request refused: invalid or unsupported URL';
    case 'timeout':
      return 'Outbound request timed out';
    case 'too-large':
      return 'Outbound response exceeds the size limit';
    case 'too-many-redirects':
      return 'Outbound request followed too many redirects';
    case 'network':
      return 'Outbound request failed';
  }
}

export const GUARDED_HTTP_CLIENT = Symbol('GuardedHttpClient');

export const OUTBOUND_DEFAULTS = {
  timeoutMs: 10_000,
  connectTimeoutMs: 3_000,
  maxBytes: 20 * 1024 * 1024,
  maxRedirects: 3,
  userAgent: 'warden',
} as const;

// ---------------------------------------------------------------------------------------------
// Address policy
// ---------------------------------------------------------------------------------------------

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const parse = (address: string): Address => ipaddr.parse(address);

/**
 * Only ordinary global unicast passes: every special-purpose range ipaddr.js names (private,
 * loopback, linkLocal, uniqueLocal, carrierGradeNat, multicast, reserved, benchmarking, teredo,
 * deprecatedSiteLocal, discard, orchid2, as112, amt, ...) is refused unless allowlisted. IPv6
 * addresses that carry an IPv4 destination (IPv4-mapped, SIIT, NAT64, 6to4) are judged by it.
 */
const GLOBAL_UNICAST = 'unicast';

/** 64:ff9b::/96 (RFC 6052) embeds a public IPv4 address; local-use 64:ff9b:1::/48 is private by definition. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** Deprecated IPv4-compatible addresses (RFC 4291), which ipaddr.js files under unicast: refused. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Cloud instance-metadata endpoints: refused even when an allowlisted range covers them. */
const METADATA: readonly Address[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, ...
  '169.254.170.2', // AWS ECS task metadata
  '169.254.170.23', // AWS EKS pod identity
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity over IPv6
].map(parse);

/** ipaddr.js matches only within one family; an IPv4 address is in no IPv6 range and vice versa. */
const inRange = (ip: Address, [net, bits]: readonly [Address, number]): boolean => ip.kind() === net.kind() && ip.match(net, bits);

const ipv4Of = (bytes: readonly number[]): ipaddr.IPv4 => new ipaddr.IPv4([...bytes]);

/** The IPv4 destination an IPv6 address stands for, where it stands for one. */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = ip.toByteArray();
  switch (ip.range()) {
    case 'rfc6145': // ::ffff:0:a.b.c.d, SIIT translated
      return ipv4Of(bytes.slice(12));
    case 'rfc6052':
      return inRange(ip, NAT64_WELL_KNOWN) ? ipv4Of(bytes.slice(12)) : undefined;
    case '6to4': // 2002:AABB:CCDD::/48
      return ipv4Of(bytes.slice(2, 6));
    default:
      return undefined;
  }
}

/** Decides whether a resolved (or literal) IP address may be connected to. */
/** Address texts whose verdict is kept (OutboundAddressPolicy.permits); past it the memory starts over. */
const VERDICTS_KEPT = 1024;

export class OutboundAddressPolicy {
  private readonly allow: readonly [Address, number][];
  private readonly verdicts = new Map<string, boolean>();

  /** `allowlist`: CIDR ranges as validated by the configuration (WARDEN_OUTBOUND_ALLOWLIST). */
  constructor(allowlist: readonly string[]) {
    this.allow = allowlist.map((range) => ipaddr.parseCIDR(range));
  }

  permits(address: string): boolean {
    // The policy never changes: a verdict is kept per address text (a callback receiver's literal
    // IP is judged at every request, 5 µs a time with ipaddr.js parsing it and every range).
    const known = this.verdicts.get(address);
    if (known !== undefined) return known;
    const text = stripBrackets(address);
    const verdict = ipaddr.isValid(text) && this.judge(parse(text));
    if (this.verdicts.size >= VERDICTS_KEPT) this.verdicts.clear();
    this.verdicts.set(address, verdict);
    return verdict;
  }

  private judge(ip: Address): boolean {
    // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d: judge it as that address, allowlist included.
    if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) return this.judge(ip.toIPv4Address());
    if (METADATA.some((m) => inRange(ip, [m, m.kind() === 'ipv4' ? 32 : 128]))) return false;
    if (this.allow.some((range) => inRange(ip, range))) return true;
    if (ip instanceof ipaddr.IPv6) {
      const inner = embeddedIpv4(ip);
      if (inner !== undefined) return this.judge(inner);
    }
    return ip.range() === GLOBAL_UNICAST && !(ip instanceof ipaddr.IPv6 && inRange(ip, IPV4_COMPATIBLE));
  }
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function stripZone(address: string): string {
  const i = address.indexOf('%');
  return i === -1 ? address : address.slice(0, i);
}

// ---------------------------------------------------------------------------------------------
// Connector: where the address check hooks into undici
// ---------------------------------------------------------------------------------------------

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;

/** undici is loaded on the first request: processes that never call out (the CLI, mostly) skip its start-up cost. */
function loadUndici(): Promise<Undici> {
  return (undici ??= import('undici'));
}

function guardedConnector(buildConnector: Undici['buildConnector'], policy: OutboundAddressPolicy, connectTimeoutMs: number): buildConnector.connector {
  // net.connect / tls.connect call this instead of dns.lookup for host names; whatever it returns
  // is exactly what the socket connects to. One refused answer refuses the name (no mixing).
  const lookup: LookupFunction = (hostname, options, callback) => {
    const lookupOptions: LookupOptions & { all: true } = { ...options, all: true };
    dnsLookup(hostname, lookupOptions, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, '');
        return;
      }
      if (addresses.length === 0) {
        callback(new OutboundError('network', `Outbound request failed: ${hostname} did not resolve`), '');
        return;
      }
      if (!addresses.every((a) => policy.permits(a.address))) {
        callback(refused(hostname), '');
        return;
      }
      if (options.all === true) {
        callback(null, addresses);
      } else {
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      }
    });
  };

  const connect = buildConnector({ timeout: connectTimeoutMs, allowH2: false, lookup });

  return (options, callback) => {
    // Literal IPs never reach `lookup` (net.connect skips it), so they are vetted here.
    const host = stripBrackets(options.hostname);
    if (isIP(stripZone(host)) !== 0 && !policy.permits(host)) {
      callback(refused(host), null);
      return;
    }
    connect(options, callback);
  };
}

function refused(host: string): OutboundError {
  // The resolved address is deliberately not in the message: callers may show it to API clients.
  return new OutboundError('refused-address', `Outbound request to ${host} refused: address not allowed`);
}

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class GuardedHttpClient {
  private readonly policy: OutboundAddressPolicy;
  private readonly userAgent: string;
  /** One agent (connection pool) per connect timeout in use; normally just the default one. */
  private readonly agents = new Map<number, Agent>();
  private closed = false;

  constructor(options: { allowlist: readonly string[]; userAgent?: string }) {
    this.policy = new OutboundAddressPolicy(options.allowlist);
    this.userAgent = options.userAgent ?? OUTBOUND_DEFAULTS.userAgent;
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const timeoutMs = positive(req.timeoutMs, OUTBOUND_DEFAULTS.timeoutMs, 'timeoutMs');
    const connectTimeoutMs = positive(req.connectTimeoutMs, OUTBOUND_DEFAULTS.connectTimeoutMs, 'connectTimeoutMs');
    const maxBytes = nonNegative(req.maxBytes, OUTBOUND_DEFAULTS.maxBytes, 'maxBytes');
    const maxRedirects = nonNegative(req.maxRedirects, OUTBOUND_DEFAULTS.maxRedirects, 'maxRedirects');
    if (this.closed) throw new OutboundError('network', 'Outbound client is closed');

    // The whole request's deadline: it settles the exchange under way at once (Exchange.abort).
    // Expired in the loop's check phase, not in its timers phase: when the event loop was held
    // past the deadline, the timer fires first on the next turn, ahead of a response that arrived
    // meanwhile and waits for the poll phase, which comes between. A receiver's 200 was recorded
    // as a timeout that way (a 12 s stall of the thread), and the callback was sent again.
    const deadline: Deadline = { expired: false, exchange: undefined };
    let expiring: NodeJS.Immediate | undefined;
    const timer = setTimeout(() => {
      expiring = setImmediate(() => {
        deadline.expired = true;
        deadline.exchange?.abort(new OutboundError('timeout'));
      });
    }, timeoutMs);
    try {
      const agent = this.agentFor(await loadUndici(), connectTimeoutMs);
      let url = this.target(req.url);
      let method: 'GET' | 'POST' = req.method;
      let body: string | Buffer | undefined = req.body;
      let headers = this.firstHeaders(req.headers);
      for (let redirects = 0; ; redirects++) {
        if (deadline.expired) throw new OutboundError('timeout');
        const follows = (status: number, location: string | undefined) => method === 'GET' && REDIRECT_STATUSES.has(status) && location !== undefined;
        const exchange = new Exchange(maxBytes, follows, req.discardBody === true);
        deadline.exchange = exchange;
        agent.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method,
            headers,
            body: body ?? null,
            // The deadline above is the only one: undici's own timers (headers, body) would fire
            // in the timers phase too, and drop a response waiting in the poll phase.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          exchange,
        );
        const res = await exchange.done;
        deadline.exchange = undefined;
        const location = single(res.headers['location']);
        if (follows(res.status, location)) {
          if (redirects >= maxRedirects) throw new OutboundError('too-many-redirects');
          url = this.target(location!, url);
          // Nothing of the caller's (credentials, custom headers) follows a redirect.
          headers = { 'user-agent': headers['user-agent'] ?? this.userAgent };
          body = undefined;
          method = 'GET';
          continue;
        }
        return { status: res.status, headers: flatten(res.headers), body: res.body, url: url.href };
      }
    } catch (err) {
      throw toOutboundError(err, deadline.expired);
    } finally {
      clearTimeout(timer);
      clearImmediate(expiring);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }

  private agentFor({ Agent, buildConnector }: Undici, connectTimeoutMs: number): Agent {
    // Closed while undici was loading: no new pool that close() would never see.
    if (this.closed) throw new OutboundError('network', 'Outbound client is closed');
    let agent = this.agents.get(connectTimeoutMs);
    if (agent === undefined) {
      agent = new Agent({ connect: guardedConnector(buildConnector, this.policy, connectTimeoutMs), allowH2: false });
      this.agents.set(connectTimeoutMs, agent);
    }
    return agent;
  }

  /** Parses and checks a URL; literal IPs are refused here already, before any dispatch. */
  private target(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new OutboundError('invalid-url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid-url');
    if (url.hostname === '' || url.username !== '' || url.password !== '') throw new OutboundError('invalid-url');
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0 && !this.policy.permits(host)) throw refused(host);
    return url;
  }

  private firstHeaders(given: Record<string, string> | undefined): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent };
    for (const [name, value] of Object.entries(given ?? {})) {
      const key = name.toLowerCase();
      if (!CLIENT_MANAGED_HEADERS.has(key)) headers[key] = value;
    }
    return headers;
  }
}

interface Deadline {
  expired: boolean;
  exchange: Exchange | undefined;
}

interface ExchangeResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** What undici hands a dispatch handler to control its request (pause, resume, abort). */
interface DispatchController {
  abort(reason: Error): void;
}

/** Of a redirect's body, at most this much is read (and dropped) to keep its connection. */
const REDIRECT_BODY_LIMIT = 64 * 1024;

/**
 * One request and its response, as an undici dispatch handler: the body gathered into a Buffer
 * within `maxBytes`. undici's `request()` wraps the same exchange in an async resource, an abort
 * listener and a Readable stream that the caller then iterates, promise by promise; measured on a
 * loopback receiver, a callback cost this client 165 µs of CPU that way and about 90 µs this way.
 *
 * `abort` settles the caller at once, whatever the request's stage: undici heeds an abort only
 * once the request is on a connection (nodejs/undici#386), so aborted while its connection is
 * still being made (DNS lookup, TCP or TLS handshake, against a host that never answers the SYN),
 * the request would hold the caller until the connector gave up, connectTimeoutMs later. The
 * request itself is aborted as soon as undici hands over its controller; undici drops it when
 * that connection attempt ends and closes the socket if it did connect.
 */
class Exchange {
  readonly done: Promise<ExchangeResult>;
  private resolve!: (result: ExchangeResult) => void;
  private reject!: (error: unknown) => void;
  private settled = false;
  private controller: DispatchController | undefined;
  private abortReason: Error | undefined;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private chunks: Buffer[] = [];
  private size = 0;
  /** A redirect's body: read up to REDIRECT_BODY_LIMIT and dropped. */
  private dropping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly redirects: (status: number, location: string | undefined) => boolean,
    private readonly discard = false,
  ) {
    this.done = new Promise<ExchangeResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  abort(reason: Error): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.fail(reason);
    this.controller?.abort(reason);
  }

  onRequestStart(controller: DispatchController): void {
    this.controller = controller;
    if (this.abortReason !== undefined) controller.abort(this.abortReason);
  }

  onResponseStart(controller: DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // Informational answers (100 Continue …) precede the response.
    if (statusCode < 200 || this.settled) return;
    this.status = statusCode;
    this.headers = headers ?? {};
    this.dropping = this.redirects(statusCode, single(this.headers['location']));
    const declared = Number(single(this.headers['content-length']));
    if (!this.dropping && Number.isFinite(declared) && declared > this.maxBytes) this.abort(new OutboundError('too-large'));
  }

  onResponseData(_controller: DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.dropping) {
      // As `body.dump({ limit })` did: past the limit the connection is given up instead.
      if (this.size > REDIRECT_BODY_LIMIT) this.finish();
      return;
    }
    if (this.size > this.maxBytes) {
      this.abort(new OutboundError('too-large'));
      return;
    }
    if (!this.discard) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: DispatchController, error: Error): void {
    this.fail(error);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.dropping || this.discard ? Buffer.alloc(0) : this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    // A redirect's body cut short: its connection goes, the redirect is followed all the same.
    if (this.dropping && this.size > REDIRECT_BODY_LIMIT) this.controller?.abort(new OutboundError('too-large'));
    this.resolve({ status: this.status, headers: this.headers, body });
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    this.reject(error);
  }
}

function toOutboundError(err: unknown, expired: boolean): OutboundError {
  const own = findOutboundError(err, 0);
  if (own !== undefined) return own;
  if (expired) return new OutboundError('timeout', undefined, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return new OutboundError('timeout', undefined, { cause: err });
  }
  const detail = typeof code === 'string' ? ` (${code})` : '';
  return new OutboundError('network', `Outbound request failed${detail}`, { cause: err });
}

/** Our own error, possibly wrapped (AggregateError from happy eyeballs, `cause`). */
function findOutboundError(err: unknown, depth: number): OutboundError | undefined {
  if (err instanceof OutboundError) return err;
  if (depth > 3 || !(err instanceof Error)) return undefined;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = findOutboundError(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return findOutboundError(err.cause, depth + 1);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be zero or more`);
  return value;
}
