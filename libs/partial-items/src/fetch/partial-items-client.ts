import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Counter, Histogram } from 'prom-client';
import { SignWithOrganizationKeyQuery } from '#warden/callbacks';
import { CATALOG_PROJECTION, GetCatalogSettingsQuery, type PartialItemsSettings } from '#warden/catalog';
import { type AcceptedItem, type ItemIdentifier, SubmitItemsCommand } from '#warden/ingestion';
import { type Clock, type CommandContext, DomainError, type IdGenerator, withUserInfoAsBasic } from '#warden/kernel';
import {
  CLOCK,
  findJsonBodyProblem,
  jsonBodyLimitsOf,
  GUARDED_HTTP_CLIENT,
  type GuardedHttpClient,
  ID_GENERATOR,
  Metrics,
  OutboundError,
  WARDEN_CONFIG,
  type WardenConfig,
} from '#warden/platform';
import type { FetchedItem, PartialFetchOutcome, PartialFetchReason, PartialItemSource } from '#warden/rules';
import type { EventStore } from '#warden/eventstore';
import { EVENT_STORE, ProjectionHost, KEYRING, type Keyring, openUrl } from '#warden/storage';
import { admit, type BreakerState, CLOSED, release, retryDelayMs, settle } from '../domain/circuit-breaker.js';
import { type ItemRef, partialItemsRequest, readAnswer } from '../domain/partial-items-exchange.js';
import { ErasureWatch } from './erasure-watch.js';
import { type ErasureMark, FetchedItemsCache } from './fetched-items-cache.js';

/** Identifiers asked in one request at most; more waiting for a slot go in the next. */
const BATCH_MAX = 100;
/** Fetched items kept for their organization's cache time, across organizations, at most. */
const CACHE_MAX = 10_000;
/** The answer of one request: up to BATCH_MAX items of at most WARDEN_MAX_ITEM_BYTES each, in practice far less. */
const ANSWER_MAX_BYTES = 16 * 1024 * 1024;
/** Room in an answer for its envelope and its `notFound` list. */
const ANSWER_ENVELOPE_BYTES = 64 * 1024;

/**
 * The largest answer `asked` items may make: each at most WARDEN_MAX_ITEM_BYTES as compact JSON,
 * twice that for an endpoint that indents its JSON, and the envelope; never over ANSWER_MAX_BYTES.
 * A larger answer holds an item over the limit, refused once read: reading a 16 MiB answer for one
 * item held the evaluating thread for 0.65 s (docs/partial-items.md).
 */
export function answerLimitFor(asked: number, maxItemBytes: number): number {
  return Math.min(ANSWER_MAX_BYTES, asked * 2 * maxItemBytes + ANSWER_ENVELOPE_BYTES);
}

/** The signature callbacks carry (docs/callbacks.md), with the request id as the delivery id. */
const SIGNATURE_HEADER = 'service-signature';
const REQUEST_ID_HEADER = 'service-delivery-id';

type Outcome = PartialFetchOutcome;

interface Waiting {
  readonly ref: ItemRef;
  readonly reason: PartialFetchReason;
  readonly context: CommandContext;
  readonly resolve: (outcome: Outcome) => void;
}

/** One organization's endpoint: who waits, how many requests are out, the breaker. */
interface Lane {
  readonly waiting: Waiting[];
  active: number;
  breaker: BreakerState;
}

/** One attempt's end: an answer body, or why not and whether another attempt may help. */
type Attempt =
  { ok: true; body: string } | { ok: false; reason: string; retry: boolean; retryAfterMs: number | null; kind: 'timeout' | 'error' | 'refused' | 'status' };

const keyOf = (orgId: string, ref: ItemRef) => `${orgId}\u0000${ref.typeId}\u0000${ref.id}`;

/**
 * Fetches whole items from the organization's partial-items endpoint (docs/partial-items.md):
 * a signed POST through the outbound guard, at most `maxConcurrency` requests per organization at
 * once (identifiers waiting meanwhile go together in the next request), retries with backoff,
 * and a circuit breaker per organization. What it gets is validated like submitted items and
 * recorded as item versions (source `partial-fetch`), then kept for the cache time, until the
 * GDPR erasure of whose data they are (ErasureWatch). Never throws: every identifier gets an
 * outcome, a failure with its reason.
 */
@Injectable()
export class PartialItemsClient implements PartialItemSource, OnApplicationShutdown {
  private readonly logger = new Logger('partial-items');
  private readonly cache = new FetchedItemsCache(CACHE_MAX);
  private readonly erasures: ErasureWatch;
  /** One request per identifier at a time: a second asker waits for the first's answer. */
  private readonly inFlight = new Map<string, Promise<Outcome>>();
  private readonly lanes = new Map<string, Lane>();
  private readonly fetches: Counter<'outcome'>;
  private readonly requests: Counter<'outcome'>;
  private readonly duration: Histogram;

  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(EVENT_STORE) events: EventStore,
    metrics: Metrics,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {
    this.erasures = new ErasureWatch(
      events,
      (orgId, subject) => this.forgetSubject(orgId, subject),
      () => this.forgetAll(),
    );
    this.fetches = new Counter({
      name: 'warden_partial_item_fetches_total',
      help: 'Whole items asked of partial-items endpoints, by outcome (fetched, cached, not-found, failed, refused, invalid, circuit-open, not-configured)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    this.requests = new Counter({
      name: 'warden_partial_item_requests_total',
      help: 'Attempts of requests to partial-items endpoints, by outcome (ok, timeout, error, status, refused)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    this.duration = new Histogram({
      name: 'warden_partial_item_request_duration_seconds',
      help: 'One attempt of a request to a partial-items endpoint, connect to last byte',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.erasures.stop();
  }

  async fetchItems(context: CommandContext, items: readonly ItemIdentifier[], reason: PartialFetchReason): Promise<Outcome[]> {
    // Nothing is kept before erasures are followed: what is fetched from here on can be forgotten.
    await this.erasures.start();
    const settings = await this.settings(context.orgId);
    if (settings === null) {
      this.fetches.inc({ outcome: 'not-configured' }, items.length);
      return items.map(() => ({ ok: false, reason: `organization ${context.orgId} has no partialItems endpoint` }));
    }
    return Promise.all(items.map((item) => this.fetchOne(context, { id: item.id, typeId: item.typeId }, reason, settings)));
  }

  private fetchOne(context: CommandContext, ref: ItemRef, reason: PartialFetchReason, settings: PartialItemsSettings): Promise<Outcome> {
    const key = keyOf(context.orgId, ref);
    // A moderator who asks for the full item wants it as the customer holds it now: the cache
    // spares the endpoint the evaluations' repeats, not an explicit request.
    const cached = settings.cacheSeconds > 0 && reason !== 'console' && this.erasures.live ? this.cache.get(context.orgId, ref) : undefined;
    if (cached !== undefined) {
      this.fetches.inc({ outcome: 'cached' });
      return Promise.resolve({ ok: true, item: cached, cached: true });
    }
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = new Promise<Outcome>((resolve) => {
        this.lane(context.orgId).waiting.push({ ref, reason, context, resolve });
        this.pump(context.orgId);
      }).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** The section as applied, caught up with the log once when it reads as never applied (an apply a moment ago). */
  private async settings(orgId: string): Promise<PartialItemsSettings | null> {
    const read = () => this.queries.execute(new GetCatalogSettingsQuery(orgId, 'partialItems'));
    let settings = await read();
    if (settings === undefined) {
      await this.projections.catchUp(CATALOG_PROJECTION);
      settings = await read();
    }
    return settings ?? null;
  }

  private lane(orgId: string): Lane {
    let lane = this.lanes.get(orgId);
    if (lane === undefined) this.lanes.set(orgId, (lane = { waiting: [], active: 0, breaker: CLOSED }));
    return lane;
  }

  /** Sends what waits, a batch per free slot; the settings are read afresh for each request. */
  private pump(orgId: string): void {
    const lane = this.lane(orgId);
    void (async () => {
      const settings = await this.settings(orgId).catch(() => null);
      const limit = settings?.maxConcurrency ?? 1;
      while (lane.active < limit && lane.waiting.length > 0) {
        const head = lane.waiting[0]!;
        const batch: Waiting[] = [];
        for (let i = 0; i < lane.waiting.length && batch.length < BATCH_MAX;) {
          if (lane.waiting[i]!.reason === head.reason) batch.push(...lane.waiting.splice(i, 1));
          else i++;
        }
        lane.active++;
        void this.send(orgId, lane, settings, batch).finally(() => {
          lane.active--;
          if (lane.waiting.length > 0) this.pump(orgId);
          else if (lane.active === 0 && lane.breaker === CLOSED) this.lanes.delete(orgId);
        });
      }
    })();
  }

  private async send(orgId: string, lane: Lane, settings: PartialItemsSettings | null, batch: readonly Waiting[]): Promise<void> {
    const outcomes = await this.request(orgId, lane, settings, batch).catch((error: unknown): Outcome[] => {
      this.logger.error({ msg: 'partial-items request failed to run', orgId, error: String(error) });
      this.fetches.inc({ outcome: 'failed' }, batch.length);
      return batch.map(() => ({ ok: false, reason: 'the fetch failed inside Warden (see its log)' }));
    });
    batch.forEach((waiting, i) => waiting.resolve(outcomes[i]!));
  }

  private async request(orgId: string, lane: Lane, settings: PartialItemsSettings | null, batch: readonly Waiting[]): Promise<Outcome[]> {
    const fail = (outcome: string, reason: string): Outcome[] => {
      this.fetches.inc({ outcome }, batch.length);
      return batch.map(() => ({ ok: false, reason }));
    };
    if (settings === null) return fail('not-configured', `organization ${orgId} has no partialItems endpoint`);
    // An erasure seen after this point may concern what the answer brings: it is then not kept.
    const erasuresBefore = this.cache.mark();
    const refs = batch.map((w) => w.ref);
    const requestId = this.ids.uuid();
    const body = JSON.stringify(partialItemsRequest(orgId, requestId, batch[0]!.reason, refs));
    let opened: { url: string; headers: Record<string, string> };
    try {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(settings.headers)) headers[name.toLowerCase()] = this.keyring.open(value as never);
      opened = { url: openUrl(settings, this.keyring), headers };
    } catch {
      return fail('failed', 'the partial-items endpoint or its headers could not be decrypted (is WARDEN_SECRET_KEY complete?)');
    }
    // User info is sent as a callback URL's is, as Basic credentials to the URL without it: the
    // guarded client refuses credentials in a URL. apply refuses what follows (common-fields.schema.ts);
    // a section applied before that check fails here, saying why and never showing the URL.
    const sendable = withUserInfoAsBasic(opened.url, opened.headers);
    if (sendable === 'invalid') return fail('refused', 'the partial-items endpoint was not called: its URL has user info that is not valid percent-encoding');
    if (sendable === 'authorization-too')
      return fail('refused', 'the partial-items endpoint was not called: its URL has user info and its headers an Authorization header; keep one and apply');
    const { url, headers } = sendable;
    let last: Extract<Attempt, { ok: false }> | undefined;
    for (let attempt = 0; attempt <= settings.retries; attempt++) {
      if (attempt > 0) await sleep(retryDelayMs(attempt, Math.random(), last?.retryAfterMs ?? null));
      const admitted = admit(lane.breaker, this.clock.now().getTime());
      if (!admitted.allowed) {
        const until = new Date(admitted.retryAt).toISOString();
        return fail(
          'circuit-open',
          `the partial-items endpoint is failing (${lane.breaker.failures} failed attempts in a row): not asked again before ${until}${last ? `; last: ${last.reason}` : ''}`,
        );
      }
      lane.breaker = admitted.state;
      const result = await this.attempt(orgId, requestId, url, { ...headers }, body, settings.timeoutMs, answerLimitFor(refs.length, this.config.maxItemBytes));
      // A refused address is the configuration's fault, not the endpoint's: it does not trip the breaker.
      lane.breaker = result.ok || result.kind !== 'refused' ? settle(lane.breaker, result.ok, this.clock.now().getTime()) : release(lane.breaker);
      if (result.ok) return this.accept(orgId, batch, result.body, requestId, settings, erasuresBefore);
      last = result;
      if (!result.retry) break;
    }
    const attempts = last?.retry ? ` (${settings.retries + 1} attempts)` : '';
    this.logger.warn({ msg: 'partial items not fetched', orgId, requestId, items: refs.length, reason: last?.reason });
    return fail(last?.kind === 'refused' ? 'refused' : 'failed', `${last?.reason ?? 'no attempt was made'}${attempts}`);
  }

  /** One signed POST; the signature is made afresh for each attempt, as a callback's is. */
  private async attempt(
    orgId: string,
    requestId: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
    maxBytes: number,
  ): Promise<Attempt> {
    const t = Math.floor(this.clock.now().getTime() / 1000);
    try {
      const signed = await this.queries.execute(new SignWithOrganizationKeyQuery(orgId, Buffer.concat([Buffer.from(`${t}.${requestId}.`), Buffer.from(body)])));
      headers[SIGNATURE_HEADER] = `t=${t},kid=${signed.kid},v1=${Buffer.from(signed.signature, 'base64url').toString('base64')}`;
    } catch (error) {
      return {
        ok: false,
        reason: `signing failed, nothing was sent: ${error instanceof Error ? error.message : String(error)}`,
        retry: false,
        retryAfterMs: null,
        kind: 'error',
      };
    }
    headers[REQUEST_ID_HEADER] = requestId;
    headers['content-type'] = 'application/json';
    const stop = this.duration.startTimer();
    try {
      const res = await this.http.request({ method: 'POST', url, headers, body, timeoutMs, maxBytes, maxRedirects: 0 });
      if (res.status === 200) {
        this.requests.inc({ outcome: 'ok' });
        const text = utf8(res.body);
        // Refused as a request body would be (docs/api.md): replacing bad bytes with U+FFFD would record altered content.
        if (text === undefined)
          return { ok: false, reason: "the partial-items endpoint's answer is not well-formed UTF-8", retry: false, retryAfterMs: null, kind: 'error' };
        return { ok: true, body: text };
      }
      this.requests.inc({ outcome: 'status' });
      const retry = res.status >= 500 || res.status === 429;
      return {
        ok: false,
        reason: `the partial-items endpoint answered ${res.status}`,
        retry,
        retryAfterMs: retryAfterMs(res.headers['retry-after']),
        kind: 'status',
      };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      switch (error.reason) {
        case 'timeout':
          this.requests.inc({ outcome: 'timeout' });
          return { ok: false, reason: `the partial-items endpoint did not answer within ${timeoutMs} ms`, retry: true, retryAfterMs: null, kind: 'timeout' };
        case 'refused-address':
        case 'invalid-url':
          this.requests.inc({ outcome: 'refused' });
          return { ok: false, reason: `the partial-items endpoint was not called: ${error.message}`, retry: false, retryAfterMs: null, kind: 'refused' };
        case 'too-large':
          this.requests.inc({ outcome: 'error' });
          return {
            ok: false,
            reason: `the partial-items endpoint's answer is over ${maxBytes} bytes (twice WARDEN_MAX_ITEM_BYTES for each item asked, and 64 KiB)`,
            retry: false,
            retryAfterMs: null,
            kind: 'error',
          };
        default:
          this.requests.inc({ outcome: 'error' });
          return { ok: false, reason: `the partial-items endpoint could not be reached: ${error.message}`, retry: true, retryAfterMs: null, kind: 'error' };
      }
    } finally {
      stop();
    }
  }

  /**
   * The answer, validated and recorded: its items as submitted items of source `partial-fetch`
   * (ingestion's command: the item types' validation, all or nothing, the same limits), the
   * request id naming the submission so that recording it again records nothing.
   */
  private async accept(
    orgId: string,
    batch: readonly Waiting[],
    body: string,
    requestId: string,
    settings: PartialItemsSettings,
    erasuresBefore: ErasureMark,
  ): Promise<Outcome[]> {
    const refs = batch.map((w) => w.ref);
    // The limits of a request body, before anything else reads the answer (an item's validation walks it).
    const read = readAnswer(body, refs, (parsed) => findJsonBodyProblem(parsed, jsonBodyLimitsOf(this.config)));
    const invalid = (problems: ReadonlyArray<{ pointer?: string; detail?: string }>): Outcome[] => {
      const reason = `the partial-items endpoint's answer was refused: ${problems
        .slice(0, 3)
        .map((p) => `${p.pointer ?? ''}: ${p.detail ?? ''}`)
        .join('; ')}`;
      this.logger.warn({ msg: 'partial items answer refused', orgId, requestId, reason });
      this.fetches.inc({ outcome: 'invalid' }, batch.length);
      return batch.map(() => ({ ok: false, reason }));
    };
    if (!read.ok) return invalid(read.problems);
    const { items, notFound } = read.answer;
    let accepted: AcceptedItem[] = [];
    if (items.length > 0) {
      const context: CommandContext = {
        orgId,
        correlationId: batch[0]!.context.correlationId,
        causationId: batch[0]!.context.causationId ?? null,
        actor: 'partial-items',
      };
      try {
        accepted = await this.commands.execute(
          new SubmitItemsCommand(
            items.map((i) => i.item),
            context,
            { source: 'partial-fetch', pointer: '/items', submissionId: `partial-fetch:${orgId}:${requestId}` },
          ),
        );
      } catch (error) {
        // The answer refused (its items invalid or too large); the log failing or busy (503, 409) is
        // no fault of the answer: thrown, so that the evaluation is tried again.
        if (error instanceof DomainError && (error.status === 400 || error.status === 413)) return invalid(error.details);
        throw error;
      }
    }
    const byKey = new Map(items.map((entry, i) => [keyOf(orgId, entry.ref), { entry, version: accepted[i]!.version, subject: accepted[i]!.subject }] as const));
    const missing = new Set(notFound.map((ref) => keyOf(orgId, ref)));
    return batch.map(({ ref }): Outcome => {
      const key = keyOf(orgId, ref);
      const found = byKey.get(key);
      if (found === undefined) {
        this.fetches.inc({ outcome: 'not-found' });
        return {
          ok: false,
          reason: missing.has(key)
            ? `the partial-items endpoint does not know item ${ref.typeId}/${ref.id}`
            : `the partial-items endpoint did not answer for item ${ref.typeId}/${ref.id}`,
        };
      }
      const sent = found.entry.item as { data: { [field: string]: unknown }; typeVersion?: string; typeSchemaVariant?: 'original' | 'partial' };
      const item: FetchedItem = {
        id: ref.id,
        typeId: ref.typeId,
        data: sent.data,
        typeVersion: sent.typeVersion ?? null,
        typeSchemaVariant: sent.typeSchemaVariant ?? 'original',
        version: found.version,
      };
      if (settings.cacheSeconds > 0 && this.erasures.live) this.cache.keep(erasuresBefore, orgId, item, found.subject, settings.cacheSeconds * 1000);
      this.fetches.inc({ outcome: 'fetched' });
      return { ok: true, item, cached: false };
    });
  }

  /** Erasures not followed for a while: every whole item leaves memory (FetchedItemsCache.forgetAll). */
  private forgetAll(): void {
    const dropped = this.cache.forgetAll();
    if (dropped > 0) this.logger.warn({ msg: 'whole items dropped from the cache: GDPR erasures were not followed for a while', dropped });
  }

  /** A GDPR erasure of `subject` (requested or completed): its whole items leave memory (FetchedItemsCache). */
  private forgetSubject(orgId: string, subject: string): void {
    const dropped = this.cache.forget(orgId, subject);
    if (dropped > 0) this.logger.log({ msg: 'whole items of an erased subject dropped from the cache', orgId, dropped });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `Retry-After` in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterMs(value: string | undefined): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as UTF-8 text; undefined when they are not well-formed UTF-8. */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
