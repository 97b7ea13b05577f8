import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { type CommandContext, deterministicId, DomainError, FairSlots, recordedAs, redactUrl, streamName } from '#warden/kernel';
import { GUARDED_HTTP_CLIENT, type GuardedHttpClient, OutboundError, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import type { HashedMedia, MediaHasher, MediaResult } from '#warden/rules';
import { mediaDecider } from '../domain/media.decider.js';
import { hashImage } from '../image-hashes.js';
import type { MediaHashed } from '../domain/media.events.js';

/** Media limits (docs/hashing.md, "Fetching"): 20 MiB, 3 redirects, 50 megapixels, 4 of an item's images at once, 16 in the process. */
const MAX_BYTES = 20 * 1024 * 1024;
const LIMIT_INPUT_PIXELS = 50_000_000;
/**
 * Each fetch holds up to MAX_BYTES until its image is hashed: an item's images all at once held an
 * item of 60 image URLs at 1.2 GB, and an item may name tens of thousands (1 MiB of URLs).
 */
export const MEDIA_PER_ITEM = 4;
/** Media fetched and hashed at once in the process, over every item and organization (FairSlots: each organization at most its share, never more than half): 320 MiB of bodies at most. */
export const MEDIA_PER_PROCESS = 16;
/**
 * The images of one item version that are fetched and hashed, in the order the item names them: an
 * item of 1 MiB may name 70,000 URLs, each a fetch of up to 10 s and a MediaHashed event, which held
 * one of its organization's evaluations for hours. The rest are answered unavailable, not fetched.
 */
export const MAX_MEDIA_PER_VERSION = 100;

const mediaResults = mediaDecider<MediaResult>();

type MediaItem = { readonly id: string; readonly typeId: string; readonly subject: string };

/** A one-way digest of the whole URL: names its results' stream and stands for the URL in log lines. */
const urlDigest = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);

const mediaStream = (orgId: string, item: MediaItem, version: number, url: string) =>
  streamName('item_media', orgId, item.typeId, item.id, String(version), urlDigest(url));

/**
 * Fetches each image URL of an item version once, with an unauthenticated GET through the guarded
 * client, and hashes it (PDQ, MD5, SHA-256); the rules engine then has the result recorded as an
 * event (recordItemMedia), with the evaluation that used it. A re-run (crash, retroaction) reads
 * the recorded result instead of fetching again. Failures are results too.
 */
@Injectable()
export class GuardedMediaHasher implements MediaHasher {
  private readonly logger = new Logger('media');
  private readonly slots = new FairSlots(MEDIA_PER_PROCESS);

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    private readonly aggregates: AggregateStore,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  /** Reads or hashes each distinct URL; writes nothing (the rules engine records with its evaluation). */
  async hashItemMedia(context: CommandContext, item: MediaItem, version: number, urls: readonly string[]): Promise<HashedMedia[]> {
    const distinct = [...new Set(urls)];
    const results: HashedMedia[] = new Array<HashedMedia>(distinct.length);
    const fetched = Math.min(distinct.length, MAX_MEDIA_PER_VERSION);
    if (distinct.length > fetched) {
      this.logger.log({
        msg: 'media past the limit not hashed',
        orgId: context.orgId,
        item: { typeId: item.typeId, id: item.id },
        version,
        images: distinct.length,
      });
      // Not recorded either (`recorded: true`: nothing to add to the log): nothing was fetched, and a re-run answers the same.
      const reason = `not fetched: at most ${MAX_MEDIA_PER_VERSION} images of an item version are hashed`;
      for (let i = fetched; i < distinct.length; i++) results[i] = { result: { ok: false, url: distinct[i]!, reason }, recorded: true };
    }
    let next = 0;
    // MEDIA_PER_ITEM at a time, each fetched and hashed before its slot takes the next URL.
    const worker = async (): Promise<void> => {
      while (next < fetched) {
        const i = next++;
        results[i] = await this.hashOne(context, item, version, distinct[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MEDIA_PER_ITEM, fetched) }, worker));
    return results;
  }

  recordItemMedia(context: CommandContext, item: MediaItem, version: number, results: readonly MediaResult[]): Promise<void> {
    return Promise.all(results.map((result) => this.recordOne(context, item, version, result))).then(() => undefined);
  }

  private async hashOne(context: CommandContext, item: MediaItem, version: number, url: string): Promise<HashedMedia> {
    const recorded = await this.recorded(mediaStream(context.orgId, item, version, url), url);
    if (recorded) return { result: recorded, recorded: true };
    const result = await this.slots.run(context.orgId, () => this.fetchAndHash(url));
    // The URL is the user's (its path as much as a pre-signed query string): the line names the
    // item and the digest its results' stream is named after, which an operator can look up.
    if (!result.ok) {
      this.logger.log({
        msg: 'media not hashed',
        orgId: context.orgId,
        item: { typeId: item.typeId, id: item.id },
        version,
        media: urlDigest(url),
        reason: result.reason,
      });
    }
    return { result, recorded: false };
  }

  private async recordOne(context: CommandContext, item: MediaItem, version: number, result: MediaResult): Promise<void> {
    const stream = mediaStream(context.orgId, item, version, result.url);
    // The event keeps the URL without its query string (a pre-signed URL's signature is a
    // credential), sealed with the rest of the result under the item's subject. The stream,
    // named after a hash of the whole URL, says which URL it was.
    const kept: MediaResult = { ...result, url: redactUrl(result.url) };
    // A result recorded meanwhile (a retroaction racing the worker, another worker) wins: the
    // decider records nothing over it, and a later run reads that first result.
    await this.aggregates.handle(stream, mediaResults, { type: 'RecordMediaResult', item, version, subject: item.subject, result: kept }, context, {
      eventIds: () => deterministicId('media', stream),
    });
  }

  /** The recorded result of `url`'s stream, with the whole URL again (signals look results up by it). */
  private async recorded(stream: string, url: string): Promise<MediaResult | undefined> {
    const [first] = await this.events.readStream(stream, { maxCount: 1 });
    const event = first && recordedAs<MediaHashed>(first, 'MediaHashed');
    return event ? withUrl(event.data.result, url) : undefined;
  }

  private async fetchAndHash(url: string): Promise<MediaResult> {
    let body: Buffer;
    try {
      // Unauthenticated: no cookies, no credentials, no customer headers (docs/hashing.md, "Fetching").
      const res = await this.http.request({ method: 'GET', url, timeoutMs: this.config.mediaTimeoutMs, maxBytes: MAX_BYTES, maxRedirects: 3 });
      if (res.status < 200 || res.status >= 300) return { ok: false, url, reason: `http-${res.status}` };
      body = res.body;
    } catch (error) {
      return { ok: false, url, reason: error instanceof OutboundError ? error.reason : 'network' };
    }
    try {
      const h = await hashImage(body, { limitInputPixels: LIMIT_INPUT_PIXELS });
      return { ok: true, url, pdq: h.pdq, quality: h.quality, md5: h.md5, sha256: h.sha256 };
    } catch (error) {
      const reason = error instanceof DomainError ? (error.kind === 'payload-too-large' ? 'too-many-pixels' : 'not-an-image') : 'decode-failed';
      return { ok: false, url, reason };
    }
  }
}

/** A recorded result with the whole URL; one erased since (a GDPR deletion: it reads as null) gives no hashes. */
function withUrl(result: MediaResult | null, url: string): MediaResult {
  return result === null ? { ok: false, url, reason: 'erased' } : { ...result, url };
}
