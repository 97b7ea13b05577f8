import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { allowlistMatcher } from '../config/warden-config.js';

/**
 * The one client for outbound HTTP (DESIGN.md section 6): media fetches, callbacks, external signals.
 *
 * Every connection is vetted on the address it actually connects to: host names are resolved by a
 * `lookup` hook handed to undici's connector (so `net.connect` only ever sees vetted addresses,
 * while the Host header and TLS servername keep the original name), literal IPs are vetted before
 * the connector opens a socket. Private, loopback, link-local, unique-local, CGNAT, multicast,
 * reserved and documentation ranges are refused unless the operator's allowlist contains the
 * address; cloud-metadata addresses are refused even then.
 */

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request, including redirects and body download. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** Response size limit. */
  maxBytes?: number;
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

export type OutboundFailure =
  | 'refused-address'
  | 'invalid-url'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects'
  | 'network';

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

/** Refused ranges (IPv4-mapped IPv6 is folded to IPv4 before the check). */
const DENIED_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT shared address space
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

const DENIED_V6: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback, deprecated IPv4-compatible addresses
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local (includes fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/** Cloud instance-metadata endpoints: refused even when an allowlisted range covers them. */
const METADATA: readonly (readonly [string, 'ipv4' | 'ipv6'])[] = [
  ['169.254.169.254', 'ipv4'], // AWS, GCP, Azure, OpenStack, ...
  ['169.254.170.2', 'ipv4'], // AWS ECS task metadata
  ['169.254.170.23', 'ipv4'], // AWS EKS pod identity
  ['100.100.100.200', 'ipv4'], // Alibaba Cloud
  ['fd00:ec2::254', 'ipv6'], // AWS IMDS over IPv6
  ['fd00:ec2::23', 'ipv6'], // AWS EKS pod identity over IPv6
];

const deniedList = (() => {
  const list = new BlockList();
  for (const [net, prefix] of DENIED_V4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of DENIED_V6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

const metadataList = (() => {
  const list = new BlockList();
  for (const [address, type] of METADATA) list.addAddress(address, type);
  return list;
})();

/** Decides whether a resolved (or literal) IP address may be connected to. */
export class OutboundAddressPolicy {
  private readonly allow: BlockList;

  constructor(allowlist: readonly string[]) {
    this.allow = allowlistMatcher(allowlist);
  }

  permits(address: string): boolean {
    const original = stripZone(stripBrackets(address));
    const family = isIP(original);
    if (family === 0) return false;
    if (family === 4) return this.permitsV4(original);

    const bytes = ipv6Bytes(original);
    // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d: judge it as that address.
    if (hasPrefix(bytes, IPV4_MAPPED, 96)) return this.permitsV4(ipv4At(bytes, 12));
    if (metadataList.check(original, 'ipv6')) return false;
    if (this.allow.check(original, 'ipv6')) return true;
    if (deniedList.check(original, 'ipv6')) return false;
    // Addresses that embed an IPv4 destination are judged by it as well.
    if (hasPrefix(bytes, NAT64, 96)) return this.permitsV4(ipv4At(bytes, 12));
    if (bytes[0] === 0x20 && bytes[1] === 0x02) return this.permitsV4(ipv4At(bytes, 2)); // 6to4
    return true;
  }

  private permitsV4(address: string): boolean {
    if (metadataList.check(address, 'ipv4')) return false;
    if (this.allow.check(address, 'ipv4')) return true;
    return !deniedList.check(address, 'ipv4');
  }
}

const IPV4_MAPPED = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
const NAT64 = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function stripZone(address: string): string {
  const i = address.indexOf('%');
  return i === -1 ? address : address.slice(0, i);
}

function hasPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits / 8; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function ipv4At(bytes: readonly number[], offset: number): string {
  return bytes.slice(offset, offset + 4).join('.');
}

/** 16 bytes of a syntactically valid (isIP === 6, zone removed) IPv6 address. */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined ? left : [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes: number[] = [];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Connector: where the address check hooks into undici
// ---------------------------------------------------------------------------------------------

function guardedConnector(policy: OutboundAddressPolicy, connectTimeoutMs: number): buildConnector.connector {
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

/** Headers the caller may not set: undici manages them, or they would let a caller re-aim the request. */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'expect',
  'content-length',
]);

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

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new OutboundError('timeout')), timeoutMs);
    try {
      const agent = this.agentFor(connectTimeoutMs);
      let url = this.target(req.url);
      let method: 'GET' | 'POST' = req.method;
      let body: string | Buffer | undefined = req.body;
      let headers = this.firstHeaders(req.headers);
      for (let redirects = 0; ; redirects++) {
        const res = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          body: body ?? null,
          signal: controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const location = single(res.headers['location']);
        if (method === 'GET' && REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
          await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          if (redirects >= maxRedirects) throw new OutboundError('too-many-redirects');
          url = this.target(location, url);
          // Nothing of the caller's (credentials, custom headers) follows a redirect.
          headers = { 'user-agent': headers['user-agent'] ?? this.userAgent };
          body = undefined;
          method = 'GET';
          continue;
        }
        const data = await readLimited(res, maxBytes);
        return { status: res.statusCode, headers: flatten(res.headers), body: data, url: url.href };
      }
    } catch (err) {
      throw toOutboundError(err, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }

  private agentFor(connectTimeoutMs: number): Agent {
    let agent = this.agents.get(connectTimeoutMs);
    if (agent === undefined) {
      agent = new Agent({ connect: guardedConnector(this.policy, connectTimeoutMs), allowH2: false });
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
      if (!DROPPED_HEADERS.has(key)) headers[key] = value;
    }
    return headers;
  }
}

async function readLimited(res: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(single(res.headers['content-length']));
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw new OutboundError('too-large');
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      res.body.destroy();
      throw new OutboundError('too-large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function toOutboundError(err: unknown, signal: AbortSignal): OutboundError {
  const own = findOutboundError(err, 0);
  if (own !== undefined) return own;
  if (signal.aborted) return new OutboundError('timeout', undefined, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
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

function flatten(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
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
