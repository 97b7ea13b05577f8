import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CATALOG_PROJECTION, GetCatalogSettingsQuery } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type Clock, DomainError, foldStream, hasUserInfo, streamName } from '#warden/kernel';
import { CLOCK, GUARDED_HTTP_CLIENT, type GuardedHttpClient, OutboundError, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, EVENT_STORE, ProjectionHost, READ_STORE, isSealedSecret, KEYRING, type Keyring, openUrl } from '#warden/storage';
import { type BatchAttemptOutcome, MAX_BATCH, statementBatchDecider, type StatementBatchState } from '../domain/statement-batch.decider.js';
import { renderStatement, type StatementCatalog } from '../domain/statement-of-reasons.js';
import { TRANSPARENCY_PROJECTION } from '../projections/transparency.projection.js';
import { TRANSPARENCY_BATCHES, TRANSPARENCY_STATEMENTS, type StatementFactsDoc, type TransparencyBatchDoc } from '../projections/transparency.read-model.js';
import { statementCatalog } from '../queries/statement-catalog.js';

export const batchStream = (orgId: string, batchId: string) => streamName('transparency_batch', orgId, batchId);

/** A batch's id: its organization and PUIDs, so forming the same batch again (a re-run) finds it recorded. */
export const batchIdOf = (orgId: string, puids: readonly string[]) =>
  createHash('sha256')
    .update(`${orgId}\u0000${puids.join(',')}`)
    .digest('hex')
    .slice(0, 32);

/** Tuning; the defaults are the documented behaviour (docs/transparency.md, "Submission"). */
export interface SubmissionOptions {
  /** This process submits (worker and all roles; never the CLI). */
  readonly submit: boolean;
  /** After a wake-up, wait this long for more statements, so that batches fill up. */
  readonly batchWaitMs: number;
  readonly attemptTimeoutMs: number;
  /** Unsent statements read at a time when forming batches. */
  readonly formPage: number;
}
export const SUBMISSION_OPTIONS = Symbol('SubmissionOptions');
export const DEFAULT_SUBMISSION_OPTIONS: Omit<SubmissionOptions, 'submit'> = { batchWaitMs: 500, attemptTimeoutMs: 30_000, formPage: 10_000 };

/**
 * Where forming batches got to in the unsent statements of one action of an organization, in
 * their order (decidedAt, then PUID): every one up to here is in a batch, or could not be sent with
 * the mapping `catalog` names. A wake-up reads on from here, so statements that cannot be sent are
 * read once, not on every wake-up; a change of the mapping starts from the first again.
 */
interface FormCursor {
  readonly catalog: string;
  readonly decidedAt: string;
  readonly puid: string;
  /** The unsent statements passed at exactly `decidedAt` (they are read again, and skipped). */
  readonly passedAt: number;
}

/**
 * The order of the index (orgId, batchId, actionId, decidedAt, puid) with batchId left out (the
 * look-ups ask for null), whole: its entries end with the rowid, the read store's last order term,
 * so a sort by only a prefix of it has SQLite sort every entry sharing that prefix (an
 * organization's or an action's millions) to find the first.
 */
const INDEX_ORDER = (['orgId', 'actionId', 'decidedAt', 'puid'] as const).map((field) => ({ field, direction: 'asc' as const }));

/**
 * The first action after `after` (in their order; from the first without it) with a statement of
 * the organization not yet in a batch: one entry of the index (orgId, batchId, actionId, decidedAt, puid).
 */
export async function nextActionWithUnsent(store: ReadStore, orgId: string, after: string | undefined): Promise<string | undefined> {
  const [next] = await store.find<StatementFactsDoc>(
    TRANSPARENCY_STATEMENTS,
    after === undefined ? { orgId, batchId: null } : { orgId, batchId: null, actionId: { gte: `${after}\u0000` } },
    { sort: INDEX_ORDER.slice(1), limit: 1 },
  );
  return next?.actionId;
}

/**
 * The first organization after `after` (from the first without it) with a statement not yet in a
 * batch: one entry of the index (batchId, orgId), whatever the organizations hold, sent or not.
 */
export async function nextOrganizationWithUnsent(store: ReadStore, after: string | undefined): Promise<string | undefined> {
  const [next] = await store.find<StatementFactsDoc>(
    TRANSPARENCY_STATEMENTS,
    after === undefined ? { batchId: null } : { batchId: null, orgId: { gte: `${after}\u0000` } },
    { sort: [{ field: 'orgId', direction: 'asc' }], limit: 1 },
  );
  return next?.orgId;
}

/**
 * The action's statements not yet in a batch, oldest first (decidedAt, then PUID), from `from` on:
 * a range of the same index, read in its order and stopped at `limit`.
 */
export function unsentOfAction(store: ReadStore, orgId: string, actionId: string, from: string | undefined, limit: number): Promise<StatementFactsDoc[]> {
  return store.find<StatementFactsDoc>(
    TRANSPARENCY_STATEMENTS,
    from === undefined ? { orgId, batchId: null, actionId } : { orgId, batchId: null, actionId, decidedAt: { gte: from } },
    { sort: INDEX_ORDER.slice(2), limit },
  );
}

/** The mapping in force, as a digest: a statement that could not be sent with one may be sent with another. */
function catalogKey(catalog: StatementCatalog): string {
  const entries = <T>(map: ReadonlyMap<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([entries(catalog.policies), entries(catalog.actions), entries(catalog.itemTypes), catalog.transparency]))
    .digest('hex');
}

const DUE_SLACK_MS = 5;
const RESPONSE_LIMIT_BYTES = 4 * 1024 * 1024;
const MAX_ERROR = 500;

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
function retryAfterMs(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * The Database's answer as an attempt's outcome (its API documentation, "Errors"): 201 created; 422
 * with `errors.existing_puids`, PUIDs it has already; another 422 (or 400, 413…) a refusal of the
 * content, which resending cannot mend; 401/403 (the token), 404, 408, 429 and 5xx are retried, as
 * an operator or the Database can mend them.
 */
export function outcomeOf(status: number, body: Buffer, retryAfter: number | null): BatchAttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'created', status };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const errors = (parsed as { errors?: unknown } | undefined)?.errors;
  const existing = (errors as { existing_puids?: unknown } | undefined)?.existing_puids;
  if (status === 422 && Array.isArray(existing) && existing.every((p) => typeof p === 'string')) return { kind: 'existing', status, puids: existing };
  const retried = status === 401 || status === 403 || status === 404 || status === 408 || status === 429 || status >= 500 || status < 400;
  const message = typeof (parsed as { message?: unknown } | undefined)?.message === 'string' ? (parsed as { message: string }).message : undefined;
  const detail = errors !== undefined ? JSON.stringify(errors) : message;
  const error = `The Database answered ${status}${detail ? `: ${detail}` : ''}`.slice(0, MAX_ERROR);
  return retried ? { kind: 'failed', status, error, retryAfterMs: retryAfter } : { kind: 'refused', status, error };
}

/**
 * Submits statements of reasons to the Transparency Database (worker role; docs/transparency.md,
 * "Submission"). The log is the truth: every batch is a stream of its own, what is due when is
 * decided there, and timers only wake this process; a restart reloads the batches due from the
 * read model and forms batches of what is still unsent.
 */
@Injectable()
export class StatementSubmitter implements OnApplicationShutdown {
  private readonly logger = new Logger('transparency');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly wakes = new Map<string, NodeJS.Timeout>();
  private readonly forming = new Map<string, Promise<void>>();
  private readonly formAgain = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Per organization, per action: where forming got to (FormCursor). */
  private readonly cursors = new Map<string, Map<string, FormCursor>>();
  /** Per organization, the earliest decision time published since its last forming began (see wake). */
  private readonly published = new Map<string, string>();
  private active = false;
  private stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(SUBMISSION_OPTIONS) private readonly options: SubmissionOptions,
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  /** Starts submitting here (the submission reactor runs in this process): reloads what is due and what is unsent. */
  async start(): Promise<void> {
    if (!this.options.submit || this.stopping) return;
    this.active = true;
    // What was published while another process submitted is unknown here: every organization starts from its first unsent statement.
    this.cursors.clear();
    this.published.clear();
    await this.projections.catchUp(TRANSPARENCY_PROJECTION);
    for (const status of ['pending', 'retrying'] as const) {
      for (const b of await this.readStore.find<TransparencyBatchDoc>(TRANSPARENCY_BATCHES, { status }))
        this.schedule(b.orgId, b.batchId, b.nextAttemptAt ?? this.clock.now().toISOString());
    }
    // Every organization with an unsent statement, one look-up each (the first 1,000 statements
    // could all be one organization's, which cannot be sent, and leave another's waiting for its
    // next published action).
    for (let after: string | undefined; ;) {
      const next = await nextOrganizationWithUnsent(this.readStore, after);
      if (next === undefined) break;
      this.wake(next);
      after = next;
    }
  }

  async pause(): Promise<void> {
    this.active = false;
    this.clearTimers();
    await Promise.allSettled([...this.inFlight.values(), ...this.forming.values()]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.pause();
  }

  /**
   * Something of the organization's changed (a published action, its settings): form batches soon.
   * `publishedAt`: a published action's time, its statement's decidedAt. It may fall before where
   * forming got to (another process's clock), so the next forming reads on from there.
   */
  wake(orgId: string, publishedAt?: string): void {
    if (!this.active) return;
    if (publishedAt !== undefined) {
      const at = Date.parse(publishedAt);
      if (Number.isNaN(at)) this.cursors.delete(orgId);
      else {
        const decidedAt = new Date(at).toISOString();
        const earliest = this.published.get(orgId);
        if (earliest === undefined || decidedAt < earliest) this.published.set(orgId, decidedAt);
      }
    }
    if (this.wakes.has(orgId)) return;
    const timer = setTimeout(() => {
      this.wakes.delete(orgId);
      this.form(orgId);
    }, this.options.batchWaitMs);
    timer.unref();
    this.wakes.set(orgId, timer);
  }

  /** A batch is due at `at`. */
  schedule(orgId: string, batchId: string, at: string): void {
    if (!this.active) return;
    const id = batchStream(orgId, batchId);
    const existing = this.timers.get(id);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.attempt(orgId, batchId);
      },
      Math.max(0, Math.min(2 ** 31 - 1, Date.parse(at) - this.clock.now().getTime())),
    );
    timer.unref();
    this.timers.set(id, timer);
  }

  private clearTimers(): void {
    for (const t of [...this.timers.values(), ...this.wakes.values()]) clearTimeout(t);
    this.timers.clear();
    this.wakes.clear();
  }

  /** One forming at a time per organization; a wake during it forms again after. */
  private form(orgId: string): void {
    if (this.forming.has(orgId)) {
      this.formAgain.add(orgId);
      return;
    }
    const run = this.formBatches(orgId)
      .catch((error: unknown) => {
        this.logger.error({ msg: 'forming statement batches failed; trying again', orgId, error: String(error) });
        this.formAgain.add(orgId);
      })
      .finally(() => {
        this.forming.delete(orgId);
        if (this.formAgain.delete(orgId)) this.wake(orgId);
      });
    this.forming.set(orgId, run);
  }

  /** The organization's transparency settings, the catalog's read model caught up (a wake-up may follow their change closely). */
  private async settings(orgId: string) {
    await this.projections.catchUp(CATALOG_PROJECTION);
    return this.queries.execute(new GetCatalogSettingsQuery(orgId, 'transparency'));
  }

  /**
   * Batches of the organization's unsent statements, action by action, each action's oldest first,
   * read a page at a time from where the last forming got to (FormCursor). Those that cannot be
   * sent (incomplete) stay unsent and are passed, so they never hold back the ones after them. An
   * action the mapping excludes (`dsa: false`) owes no statement at all: its unsent statements are
   * not read, so that a rule firing one every second does not make every start and every edit of
   * the mapping read millions of them again (docs/transparency.md, "Submission").
   */
  private async formBatches(orgId: string): Promise<void> {
    const settings = await this.settings(orgId);
    if (!settings?.enabled || !settings.submission) return;
    const published = this.published.get(orgId);
    if (published !== undefined) {
      this.published.delete(orgId);
      for (const [actionId, cursor] of this.cursors.get(orgId) ?? []) {
        if (published <= cursor.decidedAt) this.cursorsOf(orgId).set(actionId, { ...cursor, decidedAt: published, puid: '', passedAt: 0 });
      }
    }
    for (let more = true; more;) {
      more = false;
      // The batches recorded so far are in the read model: their statements are not taken again.
      await this.projections.catchUp(TRANSPARENCY_PROJECTION);
      const catalog = await statementCatalog(this.queries, this.projections, orgId);
      const mapping = catalogKey(catalog);
      // Each action with an unsent statement, one look-up each, in the index (orgId, batchId, actionId, …).
      for (let last: string | undefined; ;) {
        if (!this.active) return;
        const next = await nextActionWithUnsent(this.readStore, orgId, last);
        if (next === undefined) break;
        last = next;
        if (catalog.actions.get(last)?.dsa === false) continue;
        // Only a full page may hide more.
        if (await this.formAction(orgId, last, catalog, mapping)) more = true;
      }
    }
  }

  /** One page of the action's unsent statements, formed into batches; true when the page was full. */
  private async formAction(orgId: string, actionId: string, catalog: StatementCatalog, mapping: string): Promise<boolean> {
    const stored = this.cursors.get(orgId)?.get(actionId);
    const after = stored?.catalog === mapping ? stored : undefined;
    const limit = this.options.formPage + (after?.passedAt ?? 0);
    const page = await unsentOfAction(this.readStore, orgId, actionId, after?.decidedAt, limit);
    const unseen = after ? page.filter((f) => f.decidedAt > after.decidedAt || f.puid > after.puid) : page;
    const ready = unseen.flatMap((facts) => {
      const rendered = renderStatement(facts, catalog);
      return rendered.kind === 'statement' ? [{ facts, body: rendered.statement }] : [];
    });
    for (let i = 0; i < ready.length; i += MAX_BATCH) {
      const chunk = ready.slice(i, i + MAX_BATCH);
      const batchId = batchIdOf(
        orgId,
        chunk.map((c) => c.facts.puid),
      );
      const { state } = await this.aggregates.handle(
        batchStream(orgId, batchId),
        statementBatchDecider,
        {
          type: 'RequestBatch',
          batchId,
          statements: chunk.map((c) => ({ puid: c.facts.puid, deliveryId: c.facts.deliveryId })),
          bodies: chunk.map((c) => c.body),
          at: this.clock.now().toISOString(),
        },
        { orgId, correlationId: batchId, actor: 'transparency' },
      );
      if (state.nextAttemptAt) this.schedule(orgId, batchId, state.nextAttemptAt);
    }
    const reached = unseen.at(-1) ?? after;
    if (reached) {
      // The page began at or before `reached`'s time: it holds every unsent statement of that time up to it.
      const batched = new Set(ready.map((r) => r.facts.puid));
      const passedAt = page.filter((f) => f.decidedAt === reached.decidedAt && f.puid <= reached.puid && !batched.has(f.puid)).length;
      this.cursorsOf(orgId).set(actionId, { catalog: mapping, decidedAt: reached.decidedAt, puid: reached.puid, passedAt });
    }
    return page.length >= limit;
  }

  private cursorsOf(orgId: string): Map<string, FormCursor> {
    let cursors = this.cursors.get(orgId);
    if (!cursors) this.cursors.set(orgId, (cursors = new Map()));
    return cursors;
  }

  private attempt(orgId: string, batchId: string): void {
    const id = batchStream(orgId, batchId);
    if (this.inFlight.has(id) || !this.active) return;
    const run = this.attemptOnce(orgId, batchId)
      .catch((error: unknown) => {
        this.logger.error({ msg: 'a statement batch failed to run; retrying', orgId, batchId, error: String(error) });
        this.schedule(orgId, batchId, new Date(this.clock.now().getTime() + 1000).toISOString());
      })
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, run);
  }

  private async attemptOnce(orgId: string, batchId: string): Promise<void> {
    const id = batchStream(orgId, batchId);
    const recorded = await this.events.readStream(id);
    if (recorded.length === 0) return;
    const state: StatementBatchState = foldStream(statementBatchDecider, id, recorded);
    if (state.status !== 'pending' && state.status !== 'retrying') return;
    const due = Date.parse(state.nextAttemptAt!);
    if (due > this.clock.now().getTime() + DUE_SLACK_MS) return this.schedule(orgId, batchId, state.nextAttemptAt!);
    const settings = await this.settings(orgId);
    // Submission switched off since: the batch stays due, and is sent once it is configured again (a restart reloads it).
    if (!settings?.submission) return;
    const outcome = await this.send(settings.submission, state);
    if (outcome === undefined) return;
    try {
      const handled = await this.aggregates.handle(
        id,
        statementBatchDecider,
        {
          type: 'RecordAttempt',
          attempt: state.attempts + 1,
          at: this.clock.now().toISOString(),
          outcome,
          schedule: this.config.callbackRetryScheduleMs,
          random: Math.random(),
        },
        { orgId, correlationId: batchId, actor: 'transparency' },
        { retries: 0 },
      );
      const after = handled.state;
      if (after.status === 'retrying' && after.nextAttemptAt) this.schedule(orgId, batchId, after.nextAttemptAt);
      if (after.status === 'rejected' || after.status === 'abandoned')
        this.logger.warn({ msg: `statement batch ${after.status}`, orgId, batchId, outcome: outcome.kind });
    } catch (error) {
      // Another worker recorded an attempt meanwhile: the log says what is next.
      if (!(error instanceof DomainError)) throw error;
      this.schedule(orgId, batchId, this.clock.now().toISOString());
    }
  }

  /** One POST of the batch's remaining statements through the outbound guard; undefined when this process stopped submitting meanwhile. */
  private async send(
    submission: { url: string; sealedUrl?: unknown; headers: { [name: string]: unknown } },
    state: StatementBatchState,
  ): Promise<BatchAttemptOutcome | undefined> {
    let url: string;
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
    try {
      url = openUrl(submission, this.keyring);
      for (const [name, value] of Object.entries(submission.headers))
        headers[name.toLowerCase()] = isSealedSecret(value) ? this.keyring.open(value) : String(value);
    } catch {
      return {
        kind: 'failed',
        status: null,
        error: 'The configured endpoint or token could not be decrypted (is WARDEN_SECRET_KEY complete?)',
        retryAfterMs: null,
      };
    }
    // apply refuses user info in the URL (the token is the Database's credentials); a section applied
    // before that check would be refused by the outbound guard on every attempt: said plainly here.
    if (hasUserInfo(url)) {
      return {
        kind: 'failed',
        status: null,
        error: 'The submission URL has user info, which is not sent (the token is): remove it from the URL and apply',
        retryAfterMs: null,
      };
    }
    try {
      const res = await this.http.request({
        method: 'POST',
        url,
        headers,
        body: JSON.stringify({ statements: state.remaining }),
        timeoutMs: this.options.attemptTimeoutMs,
        maxBytes: RESPONSE_LIMIT_BYTES,
        maxRedirects: 0,
      });
      return outcomeOf(res.status, res.body, retryAfterMs(res.headers['retry-after'], this.clock.now()));
    } catch (error) {
      if (!this.active) return undefined;
      return { kind: 'failed', status: null, error: error instanceof OutboundError ? error.message : 'Outbound request failed', retryAfterMs: null };
    }
  }
}
