import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { rateLimited } from '#warden/kernel';
import { clientNetwork } from '../auth/client-network.js';
import { SESSION_COOKIE } from '../auth/console-access.js';
import { attachAuthFailureLimit, type AuthFailureLimit } from '../auth/auth-failure-limit.js';
import type { WardenConfig } from '../config/warden-config.js';
import { isCustomerRoute } from './early-api-key-check.js';
import { replyWithError } from './send-error.js';
import type { RateLimit, RateLimitStore } from './rate-limit-store.port.js';
import { MemoryRateLimitStore } from './token-bucket.js';

/** The two limits of the API: requests per key (or address), and failed authentications per address. */
interface RateLimitStores {
  /** Absent when WARDEN_RATE_LIMIT_PER_SECOND is 0. */
  readonly requests: RateLimitStore | undefined;
  /** Absent when WARDEN_AUTH_FAILURES_PER_MINUTE is 0. */
  readonly authFailures: RateLimitStore | undefined;
}

type RateLimitSettings = Pick<WardenConfig, 'rateLimitPerSecond' | 'rateLimitBurst' | 'rateLimitStore' | 'authFailuresPerMinute' | 'authFailureBurst'>;

/**
 * Opens the shared store of one limit (storage's MongoDB one, `sharedRateLimitStores`), absent
 * when the process has no MongoDB connection.
 */
export type SharedRateLimitStores = (limit: RateLimit) => Promise<RateLimitStore>;

/**
 * The stores WARDEN_RATE_LIMIT_STORE names, one per limit: this process's own buckets, or the
 * shared store storage opens. On MongoDB both live in the same collection: their keys never
 * collide (`key:`/`ip:` against `auth-failures:`), and each store applies its own rate to its own
 * documents.
 */
export async function openRateLimitStores(config: RateLimitSettings, shared: SharedRateLimitStores | undefined): Promise<RateLimitStores> {
  const open = async (limit: RateLimit | undefined): Promise<RateLimitStore | undefined> => {
    if (limit === undefined) return undefined;
    if (config.rateLimitStore === 'memory') return new MemoryRateLimitStore(limit);
    if (shared === undefined) throw new Error('WARDEN_RATE_LIMIT_STORE is mongodb but no MongoDB connection is open');
    return shared(limit);
  };
  return {
    requests: await open(config.rateLimitPerSecond === 0 ? undefined : { ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }),
    authFailures: await open(
      config.authFailuresPerMinute === 0 ? undefined : { ratePerSecond: config.authFailuresPerMinute / 60, burst: config.authFailureBurst },
    ),
  };
}

/** The failure bucket of a client address: its network (an IPv6 /64 shares one budget). */
function authFailureBucket(address: string): string {
  return 'auth-failures:' + clientNetwork(address);
}

/**
 * Takes tokens, letting the request go ahead when the store fails: the limiter must not take the
 * API down with it, and a store that is down usually means the API's own reads fail. Logged once
 * per outage, not once per request.
 */
class FailOpen {
  private failing = false;

  constructor(private readonly logger: Logger) {}

  async take(store: RateLimitStore, bucket: string, tokens = 1): Promise<number> {
    let wait: number;
    try {
      wait = await store.take(bucket, tokens);
    } catch (error) {
      if (!this.failing)
        this.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'rate-limit store failed; requests go unlimited until it answers');
      this.failing = true;
      return 0;
    }
    if (this.failing) this.logger.info('rate-limit store answers again');
    this.failing = false;
    return wait;
  }
}

/**
 * Whose budget a request spends: on a customer route, its API key's; else its console session's
 * (people behind one office address each have their own), else its client address's. Keys and
 * tokens are hashed. A key counts only where it is checked before anything else is done, the
 * customer routes (early-api-key-check.ts: an unknown key is a 401 charged to the address's
 * failed-authentication budget); elsewhere nothing checks it, and a fresh random X-API-KEY per
 * request was a fresh bucket each: 400 sign-ins from one address, none limited.
 */
function requestBucket(request: FastifyRequest, sessionCookie: string): string {
  const key = request.headers['x-api-key'];
  if (isCustomerRoute(request) && typeof key === 'string' && key !== '') return 'key:' + createHash('sha256').update(key.trim()).digest('base64url');
  // The name the guard reads (and charges an invented one of): any other would be a fresh bucket per request, never charged.
  const session = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[sessionCookie];
  if (session) return 'session:' + createHash('sha256').update(session).digest('base64url');
  return 'ip:' + request.ip;
}

/** Body bytes one token pays for: a request costs one token, and one more for each 64 KiB of body past the first. */
export const BODY_BYTES_PER_TOKEN = 64 * 1024;

/** How the rate limit weighs a request: its body's size (docs/api.md, "Rate limits"). */
export interface RequestCosts {
  /** The bucket's size: no request costs more (it could never be paid). */
  readonly burst: number;
  /** WARDEN_BODY_LIMIT_BYTES: what a body sent without Content-Length is charged as. */
  readonly bodyLimitBytes: number;
}

/**
 * The tokens a request takes: one per BODY_BYTES_PER_TOKEN of body (Content-Length), at least one,
 * at most the burst; a body without Content-Length (chunked) as one of the body limit. A token per
 * request whatever its size let one key keep the event loop parsing 10 MB bodies, and another
 * organization's one-item requests waited 0.7 s at the median meanwhile.
 */
export function requestCost(
  request: Pick<FastifyRequest, 'headers' | 'method'> & { readonly routeOptions?: { readonly bodyLimit?: number } },
  costs: RequestCosts,
): number {
  // Fastify reads no body of a GET or a HEAD, whatever the headers declare.
  if (request.method === 'GET' || request.method === 'HEAD') return 1;
  const declared = request.headers['content-length'];
  const chunked = request.headers['transfer-encoding'] !== undefined;
  // A chunked body as one of its route's limit (a sign-in's is 64 KiB), else of the server's.
  const limit = Math.min(costs.bodyLimitBytes, request.routeOptions?.bodyLimit ?? costs.bodyLimitBytes);
  const bytes = declared !== undefined && /^\d{1,15}$/.test(declared) ? Number(declared) : chunked ? limit : 0;
  return Math.max(1, Math.min(Math.floor(costs.burst), Math.ceil(bytes / BODY_BYTES_PER_TOKEN)));
}

/**
 * Limits `/api/` requests per API key (per console session, else per client address) and answers 429 with the
 * error body (docs/api.md, "Errors") and Retry-After. Hands the failed-authentication limit to the API-key guard on
 * each request (see AuthFailureLimit): only the guard knows whether a key is valid.
 */
/** `sessionCookie`: the console session cookie's name on this deployment (sessionCookieName). `costs`: without, every request takes one token. */
export function installRateLimit(
  fastify: FastifyInstance,
  stores: RateLimitStores,
  logger: Logger,
  sessionCookie: string = SESSION_COOKIE,
  costs?: RequestCosts,
): void {
  const failOpen = new FailOpen(logger);
  const { requests, authFailures } = stores;
  if (authFailures !== undefined) {
    const limit: AuthFailureLimit = {
      charge: async (address) => {
        const wait = await failOpen.take(authFailures, authFailureBucket(address));
        if (wait > 0) throw rateLimited(wait);
      },
    };
    attachAuthFailureLimit(fastify, limit);
  }
  if (requests === undefined) return;
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith('/api/')) return;
    const bucket = requestBucket(request, sessionCookie);
    const wait = await failOpen.take(requests, bucket, costs ? requestCost(request, costs) : 1);
    if (wait > 0) {
      return replyWithError(reply, request, rateLimited(wait));
    }
  });
}
