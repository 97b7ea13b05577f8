import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { ReadStore } from '#warden/readstore';
import type { Clock } from '#warden/kernel';
import { type ApiKeyAuthenticator, type AuthenticationResult, CLOCK, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { hashApiKey } from './domain/api-key-secret.js';
import { IDENTITY_PROJECTION } from './projections/identity.projection.js';
import { API_KEY_USAGE, API_KEYS_BY_HASH, type ApiKeyHashDoc } from './projections/identity.read-model.js';

const CACHE_TTL_MS = 1_000;
const CACHE_MAX = 10_000;

/**
 * Authenticates X-API-KEY values through a short cache (a revoked key stops working within
 * CACHE_TTL_MS). A miss catches the identity projection up with the log before answering
 * "unknown", so a key just created by the CLI works on the very next request; misses at the same
 * time share one catch-up (ProjectionHost.catchUp), so invented keys stay cheap. Last use is
 * kept in memory and written in one batch every WARDEN_API_KEY_USAGE_FLUSH_SECONDS (10 by
 * default), not once per request.
 */
@Injectable()
export class CachedApiKeyAuthenticator implements ApiKeyAuthenticator, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('api-keys');
  private readonly cache = new Map<string, { result: AuthenticationResult; expires: number }>();
  private readonly lastUsed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  /** The flush under way (flushUsage). */
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WARDEN_CONFIG) private readonly config: Pick<WardenConfig, 'apiKeyUsageFlushSeconds'>,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flushUsage(), this.config.apiKeyUsageFlushSeconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushUsage();
  }

  async authenticate(rawKey: string): Promise<AuthenticationResult> {
    const hash = hashApiKey(rawKey);
    const now = Date.now();
    const cached = this.cache.get(hash);
    const result = cached && cached.expires > now ? cached.result : await this.lookup(hash);
    if (result.outcome === 'ok') this.lastUsed.set(result.principal.keyId, this.clock.now().toISOString());
    return result;
  }

  private async lookup(hash: string): Promise<AuthenticationResult> {
    let doc = await this.readStore.get<ApiKeyHashDoc>(API_KEYS_BY_HASH, hash);
    if (!doc) {
      await this.projections.catchUp(IDENTITY_PROJECTION);
      doc = await this.readStore.get<ApiKeyHashDoc>(API_KEYS_BY_HASH, hash);
    }
    // Unknown keys are not cached: they may be created at any moment.
    if (!doc) return { outcome: 'unknown' };
    const result: AuthenticationResult =
      doc.status === 'active'
        ? { outcome: 'ok', principal: { orgId: doc.orgId, keyId: doc.keyId, team: doc.team } }
        : { outcome: 'inactive', reason: doc.status };
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { result, expires: Date.now() + CACHE_TTL_MS });
    return result;
  }

  /**
   * One flush at a time: a use a failed flush keeps back is put back only where no later one is
   * waiting, and a flush that took that later one and succeeded meanwhile would then be
   * overwritten by the older use at the next flush.
   */
  flushUsage(): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run;
    return run;
  }

  private async flushOnce(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed.entries()];
    this.lastUsed.clear();
    try {
      await this.readStore.commit(batch.map(([keyId, at]) => ({ op: 'put' as const, collection: API_KEY_USAGE, id: keyId, doc: { lastUsedAt: at } })));
    } catch (error) {
      // Tried again at the next flush (a busy store under load): a key used once would otherwise
      // never show its use. A use recorded meanwhile is later and wins.
      for (const [keyId, at] of batch) if (!this.lastUsed.has(keyId)) this.lastUsed.set(keyId, at);
      this.logger.warn({ msg: 'could not record API key use: tried again at the next flush', error: String(error) });
    }
  }
}
