import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import { rateLimited } from '#warden/kernel';
import type { WardenConfig } from '../config/warden-config.js';
import { errorBody } from './error-body.js';
import { MongoRateLimitStore } from './mongo-rate-limit-store.js';
import type { RateLimitStore } from './rate-limit-store.port.js';
import { MemoryRateLimitStore } from './token-bucket.js';

/** The store WARDEN_RATE_LIMIT_STORE names, or none when rate limiting is off. */
export async function openRateLimitStore(
  config: Pick<WardenConfig, 'rateLimitPerSecond' | 'rateLimitBurst' | 'rateLimitStore'>,
  mongo: Connection | undefined,
): Promise<RateLimitStore | undefined> {
  if (config.rateLimitPerSecond === 0) return undefined;
  const limit = { ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst };
  if (config.rateLimitStore === 'memory') return new MemoryRateLimitStore(limit);
  if (mongo === undefined) throw new Error('WARDEN_RATE_LIMIT_STORE is mongodb but no MongoDB connection is open');
  return MongoRateLimitStore.open(mongo, limit);
}

/**
 * Limits `/api/` requests per API key (per client address without one) and answers 429 with the
 * section 7 body and Retry-After. When the store fails the request goes ahead: the limiter must
 * not take the API down with it, and a store that is down usually means the API's own reads fail.
 */
export function installRateLimit(fastify: FastifyInstance, store: RateLimitStore, logger: Logger): void {
  let failing = false;
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith('/api/')) return;
    const key = request.headers['x-api-key'];
    const bucket =
      typeof key === 'string' && key !== ''
        ? 'key:' + createHash('sha256').update(key.trim()).digest('base64url')
        : 'ip:' + request.ip;
    let wait: number;
    try {
      wait = await store.take(bucket);
    } catch (error) {
      // Logged once per outage, not once per request.
      if (!failing) logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'rate-limit store failed; requests go unlimited until it answers');
      failing = true;
      return;
    }
    if (failing) logger.info('rate-limit store answers again');
    failing = false;
    if (wait > 0) {
      const error = rateLimited(wait);
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.status(429).type('application/json').send(errorBody(error, request.id));
    }
  });
}
