import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ItemTypeDefinition, RuleDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, type ItemSubmitted, itemStream } from '#warden/ingestion';
import { canonicalJsonDigest, type Clock, type CommandContext, type RecordedEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { CLOCK } from '#warden/platform';
import { AggregateStore, EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { GUARDED_HTTP_CLIENT, type GuardedHttpClient } from '#warden/platform';
import { evaluateConditionSet } from '../domain/condition-evaluator.js';
import { decodeEvaluation, type Environment, type Evaluation, type ItemEvaluated, type RuleResult } from '../domain/evaluation.events.js';
import { contentKey, contentSince, itemContentDigest, type VersionContent } from '../domain/item-content.js';
import { evaluationEventId, itemEvaluationDecider, type RecordEvaluation } from '../domain/item-evaluation.decider.js';
import type { ConditionRecord, EvaluatedItem, MediaResult, SetEvaluation, SignalContext } from '../domain/evaluation.model.js';
import { needsWholeItem } from '../domain/whole-item-fetch.js';
import { imageUrls, MEDIA_HASHER, type MediaHasher } from './media-hasher.js';
import { PARTIAL_ITEMS, type PartialFetchOutcome, type PartialItemSource } from './partial-items.js';
import { USER_STANDING, type UserStanding } from './user-standing.js';
import {
  CREATOR_SUBMISSIONS,
  countWithin,
  creatorSubmissionsDocId,
  type CreatorSubmissionsDoc,
  creatorSubmissionsProjection,
} from '../projections/creator-submissions.projection.js';
import { evaluationStream } from '../domain/evaluation.streams.js';
import { firstPassingRoute, type OrderedRoutingRule, REPORT_DATA_KEY, type Route, type RoutingReport } from '../domain/review-routing.js';
import { collectActions, publishes, rulesFor } from '../domain/rule-selection.js';
import { SignalMemo } from '../domain/signal-memo.js';
import { SignalRegistry } from '../domain/signal-registry.js';
import { type CatalogSnapshot, CatalogSnapshots } from './catalog-snapshots.js';
import { DailyActionCap } from './daily-action-cap.js';

export interface ItemToEvaluate {
  readonly id: string;
  readonly typeId: string;
  readonly data: { [field: string]: unknown };
  readonly creator: ItemIdentifier | null;
  readonly subject: string;
  /** The legacy endpoint skips image hashing. */
  readonly source?: ItemSubmitted['data']['source'];
  /** `partial`: the item may lack fields its rules need; the whole item is fetched when they do (docs/partial-items.md). */
  readonly typeSchemaVariant?: ItemSubmitted['data']['typeSchemaVariant'];
}

/** A recorded submission's data as the item the rules evaluate. */
export function submittedItem(data: ItemSubmitted['data']): ItemToEvaluate & { source: ItemSubmitted['data']['source'] } {
  const { itemId: id, typeId, data: fields, creator, subject, source, typeSchemaVariant } = data;
  return { id, typeId, data: fields, creator, subject, source, typeSchemaVariant };
}

export interface EvaluationOptions {
  readonly environment: Environment;
  /** Evaluate these rules instead of the item type's live ones (retroaction, backtest). */
  readonly rules?: readonly RuleDefinition[];
  /**
   * Skip the look for an earlier record of this evaluation before evaluating: recording it still
   * decides nothing over an earlier one. For live submissions, which are nearly always new.
   */
  readonly likelyNew?: boolean;
}

/** The evaluation stream's environment part: a retroaction is recorded once per rule. */
const runKey = (options: EvaluationOptions) => (options.rules ? `${options.environment}:${options.rules.map((r) => r.id).join(',')}` : options.environment);

export const SIGNAL_REGISTRY = Symbol('SignalRegistry');

const NO_MEDIA: ReadonlyMap<string, MediaResult> = new Map();

/** Earlier versions read per page while looking for where the item's current content began. */
const CONTENT_PAGE = 32;

function isFetchedVersion(event: RecordedEvent): boolean {
  return event.type === 'ItemSubmitted' && (event.data as { source?: string }).source === 'partial-fetch';
}

function versionContent(event: RecordedEvent): VersionContent {
  if (event.type !== 'ItemSubmitted' || event.metadata.personalDataRedacted) return { version: event.revision, digest: null };
  const data = event.data as unknown as ItemSubmitted['data'];
  return { version: event.revision, digest: itemContentDigest({ data: data.data, creator: data.creator }) };
}

export interface PreparedEvaluation {
  readonly stream: string;
  readonly evaluated: Evaluation;
  readonly context: CommandContext;
  /** What to record; null when the version was found evaluated already. */
  readonly command: RecordEvaluation | null;
}

/**
 * The evaluation record keeps signal values (booleans, numbers), never raw inputs such as the
 * text a user wrote. A number can still be the user's own (an age compared without a signal), and
 * a detail can be derived from their data (a distance): what the conditions saw is sealed under
 * the item's subject all the same (ItemEvaluated's `conditionValues`).
 */
function withoutPersonalData(record: ConditionRecord): ConditionRecord {
  const v = record.value;
  if (v === undefined || v === null || typeof v === 'boolean' || typeof v === 'number') return record;
  const { value: _dropped, ...rest } = record;
  return rest;
}

/**
 * Evaluates an item version against its rules (catalog, signals, media, daily caps) and records
 * what the item evaluation decider makes of it — the outcome and the published actions — in one
 * append to the version's evaluation stream, with ids derived from it: evaluating the same version
 * twice (a reactor re-run, the legacy sync path racing the worker) records it once.
 */
/**
 * The digest of a rule's definition (canonical JSON of the catalog's rule): recorded with each
 * rule result, so that an evaluation says which definition it ran (issue 31: evidence bound to
 * every evaluation). The catalog hands out the same rule object until the rule changes, so the
 * digest is computed once per definition.
 */
const definitionDigests = new WeakMap<object, string>();
export function ruleDefinitionDigest(rule: RuleDefinition): string {
  let digest = definitionDigests.get(rule);
  if (digest === undefined) {
    digest = canonicalJsonDigest(rule);
    definitionDigests.set(rule, digest);
  }
  return digest;
}

/** What an evaluation event keeps of a condition's record: no personal value, nor the partial-item bookkeeping. */
function recordedCondition(record: ConditionRecord): ConditionRecord {
  const { missing: _missing, ...kept } = record;
  return withoutPersonalData(record.missing === undefined ? record : kept);
}

/** The conditions left unknown for want of fields say why the whole item could not be had. */
function withFetchFailure(set: SetEvaluation, reason: string): SetEvaluation {
  if (!set.conditions.some((c) => c.missing !== undefined)) return set;
  return {
    ...set,
    conditions: set.conditions.map((c) => (c.missing === undefined ? c : { ...c, error: `${c.error}; fetching the whole item failed: ${reason}` })),
  };
}

/**
 * The item to evaluate once the whole of it was fetched: the fields sent with the submission as
 * sent (they are what is being moderated), the others from the customer's answer; the creator
 * from its role when the submission did not carry it.
 */
function wholeItem(item: ItemToEvaluate, itemType: ItemTypeDefinition, fetched: { readonly data: { readonly [field: string]: unknown } }): ItemToEvaluate {
  const data = { ...fetched.data, ...item.data };
  if (item.creator !== null) return { ...item, data };
  const role = itemType.roles['creator'];
  const named = role === undefined ? undefined : data[role];
  const creator = isItemIdentifier(named) ? { id: named.id, typeId: named.typeId } : null;
  return { ...item, data, creator };
}

function isItemIdentifier(value: unknown): value is ItemIdentifier {
  const ref = value as Partial<ItemIdentifier> | null;
  return typeof ref === 'object' && ref !== null && typeof ref.id === 'string' && typeof ref.typeId === 'string';
}

@Injectable()
export class ItemEvaluator {
  private readonly logger = new Logger('rules');
  private readonly memo = new SignalMemo();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly aggregates: AggregateStore,
    @Inject(SIGNAL_REGISTRY) private readonly registry: SignalRegistry,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    private readonly snapshots: CatalogSnapshots,
    private readonly caps: DailyActionCap,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Optional() @Inject(MEDIA_HASHER) private readonly media?: MediaHasher,
    @Optional() @Inject(PARTIAL_ITEMS) private readonly partials?: PartialItemSource,
    @Optional() @Inject(USER_STANDING) private readonly standing?: UserStanding,
  ) {}

  /**
   * Evaluates and records, unless this version was already evaluated; returns the record and
   * whether this call recorded it (and so published its actions).
   */
  async run(
    context: CommandContext,
    item: ItemToEvaluate,
    version: number,
    options: EvaluationOptions,
  ): Promise<{ evaluation: Evaluation; recordedNow: boolean } | undefined> {
    const prepared = await this.prepare(context, item, version, options);
    return prepared && this.settle(prepared);
  }

  /**
   * Evaluates without writing: the worker prepares a whole batch, then records it in one go so
   * that all the appends share one commit.
   */
  async prepare(context: CommandContext, item: ItemToEvaluate, version: number, options: EvaluationOptions): Promise<PreparedEvaluation | undefined> {
    const stream = evaluationStream(context.orgId, item.typeId, item.id, version, runKey(options));
    const existing = options.likelyNew ? undefined : await this.recorded(stream);
    if (existing) return { stream, evaluated: existing, context, command: null };
    let snapshot = await this.snapshots.get(context.orgId);
    let itemType = snapshot.itemTypes.get(item.typeId);
    if (!itemType) {
      // The item was accepted against a catalog this process may not have read yet: applied
      // moments ago, or read models still catching up after a start or a rebuild. Only a type
      // missing from the caught-up catalog was really archived.
      await this.projections.catchUp('catalog');
      snapshot = await this.snapshots.refresh(context.orgId);
      itemType = snapshot.itemTypes.get(item.typeId);
    }
    if (!itemType) {
      this.logger.warn({ msg: 'item type no longer exists; item not evaluated', orgId: context.orgId, typeId: item.typeId });
      return undefined;
    }
    const content = this.contentKeyOf(context.orgId, item, version);
    const evaluated = await this.evaluate(context, item, itemType, version, snapshot, options, content);
    const command: RecordEvaluation = {
      type: 'RecordEvaluation',
      orgId: context.orgId,
      run: runKey(options),
      // Only a published action needs it (it reads the item's earlier versions).
      content: evaluated.actions.length > 0 ? await content() : '',
      evaluation: evaluated,
      creator: item.creator,
      actions: snapshot.actions,
    };
    return { stream, evaluated, context, command };
  }

  /** Appends a prepared evaluation once; a concurrent or earlier record of it wins. */
  async record(prepared: PreparedEvaluation): Promise<Evaluation> {
    return (await this.settle(prepared)).evaluation;
  }

  /**
   * Records a prepared evaluation once, with ids derived from its stream. A version found
   * evaluated while preparing already holds the record; one recorded meanwhile by someone else (a
   * reactor re-run, the legacy sync path racing the worker) makes the decider record nothing, and
   * that record is read back.
   */
  private async settle(prepared: PreparedEvaluation): Promise<{ evaluation: Evaluation; recordedNow: boolean }> {
    if (prepared.command === null) return { evaluation: prepared.evaluated, recordedNow: false };
    const { stream } = prepared;
    const { events } = await this.aggregates.handle(stream, itemEvaluationDecider, prepared.command, prepared.context, {
      eventIds: (_e, i) => evaluationEventId(stream, i),
    });
    if (events.length > 0) return { evaluation: prepared.evaluated, recordedNow: true };
    return { evaluation: (await this.recorded(stream)) ?? prepared.evaluated, recordedNow: false };
  }

  /** Prepares the evaluation of a recorded ItemSubmitted (the worker's reactor and the legacy sync path alike). */
  prepareSubmission(event: RecordedEvent): Promise<PreparedEvaluation | undefined> {
    const data = event.data as unknown as ItemSubmitted['data'];
    return this.prepare(
      { orgId: event.metadata.orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'rules-engine' },
      submittedItem(data),
      event.revision,
      { environment: 'LIVE', likelyNew: true },
    );
  }

  /** Evaluates and records a recorded ItemSubmitted. */
  async evaluateSubmission(event: RecordedEvent): Promise<Evaluation | undefined> {
    const prepared = await this.prepareSubmission(event);
    return prepared && this.record(prepared);
  }

  /** Evaluates without recording or publishing anything (backtest). */
  async dryRun(context: CommandContext, item: ItemToEvaluate, version: number, rules: readonly RuleDefinition[]) {
    const snapshot = await this.snapshots.get(context.orgId);
    const itemType = snapshot.itemTypes.get(item.typeId);
    if (!itemType) return undefined;
    return this.evaluate(context, item, itemType, version, snapshot, { environment: 'BACKTEST', rules }, this.contentKeyOf(context.orgId, item, version));
  }

  /**
   * Routes an item bound for review: the routing rules' condition sets, in the order given, on
   * the same condition evaluator and signal context as a rule evaluation, with the report's
   * routing inputs under `data.__report` (where the evaluator resolves REPORT_REASON,
   * REPORTED_POLICY and REPORT_COUNT). Images are not fetched again: image signals on a routing
   * rule see no media and are unknown. Records nothing.
   */
  async route(
    orgId: string,
    item: Pick<ItemToEvaluate, 'id' | 'typeId' | 'data' | 'creator'>,
    rules: readonly OrderedRoutingRule[],
    report: RoutingReport | null,
  ): Promise<Route | null> {
    let snapshot = await this.snapshots.get(orgId);
    let itemType = snapshot.itemTypes.get(item.typeId);
    if (!itemType) {
      await this.projections.catchUp('catalog');
      snapshot = await this.snapshots.refresh(orgId);
      itemType = snapshot.itemTypes.get(item.typeId);
    }
    if (!itemType) return null;
    // Only the routing puts report inputs on an item: a customer's own `__report` field is not one.
    const { [REPORT_DATA_KEY]: _customers, ...fields } = item.data;
    const data = report === null ? fields : { ...fields, [REPORT_DATA_KEY]: { ...report } };
    const ctx = this.signalContext(orgId, { ...item, data, subject: '' }, itemType, snapshot, 0, NO_MEDIA);
    const deps = { registry: this.registry, memo: this.memo };
    const route = await firstPassingRoute(rules, (set) => evaluateConditionSet(set, ctx, deps));
    return route && { ...route, conditions: route.conditions.map(withoutPersonalData) };
  }

  /** The item's content key, read once per evaluation and only when first needed. */
  private contentKeyOf(orgId: string, item: ItemToEvaluate, version: number): () => Promise<string> {
    let key: Promise<string> | undefined;
    return () => (key ??= this.readContentKey(orgId, item, version));
  }

  /**
   * The digest of the item's content and the version where that content began, read from the
   * item's earlier versions a page at a time until the run of identical content ends (nearly
   * always within the first page: one read).
   */
  private async readContentKey(orgId: string, item: ItemToEvaluate, version: number): Promise<string> {
    const digest = itemContentDigest(item);
    const stream = itemStream(orgId, item.typeId, item.id);
    let since = version;
    while (since > 0) {
      const from = Math.max(0, since - CONTENT_PAGE);
      const earlier = await this.events.readStream(stream, { fromRevision: from, maxCount: since - from });
      // A version fetched from the customer (docs/partial-items.md) is no submission: the run of
      // identical submitted content goes on through it, so a re-sent partial item acts once.
      const found = contentSince(
        since,
        digest,
        earlier.map((e) => (isFetchedVersion(e) ? { version: e.revision, digest } : versionContent(e))),
      );
      const runGoesOn = found === from && from > 0;
      since = found;
      if (!runGoesOn) break;
    }
    return contentKey(digest, since);
  }

  private async recorded(stream: string): Promise<Evaluation | undefined> {
    const [first] = await this.events.readStream(stream, { maxCount: 1 });
    return first ? decodeEvaluation(first.data as unknown as ItemEvaluated['data']) : undefined;
  }

  private async evaluate(
    context: CommandContext,
    item: ItemToEvaluate,
    itemType: ItemTypeDefinition,
    version: number,
    snapshot: CatalogSnapshot,
    options: EvaluationOptions,
    /** The item's content key (item-content.ts), read when first asked for. */
    content: () => Promise<string>,
  ): Promise<Evaluation> {
    const now = this.clock.now();
    const rules = options.rules ?? rulesFor(snapshot.rules, item.typeId, now);
    const urls = this.mediaUrls(item, itemType);
    let media = urls.length === 0 ? NO_MEDIA : await this.hashMedia(context, item, version, urls);
    const partial = item.typeSchemaVariant === 'partial';
    let sets = await this.evaluateRules(rules, this.signalContext(context.orgId, item, itemType, snapshot, version, media, partial));
    if (partial && rules.length > 0 && needsWholeItem(sets)) {
      // Evaluated on what was sent first: only a rule those fields leave undecided makes the fetch.
      const fetched = await this.fetchWholeItem(context, item);
      if (fetched.ok) {
        const whole = wholeItem(item, itemType, fetched.item);
        const more = this.mediaUrls(whole, itemType).filter((url) => !media.has(url));
        if (more.length > 0) media = new Map([...media, ...(await this.hashMedia(context, item, version, more))]);
        sets = await this.evaluateRules(
          rules,
          this.signalContext(context.orgId, whole, itemType, snapshot, version, media, fetched.item.typeSchemaVariant === 'partial'),
        );
      } else {
        sets = sets.map((set) => withFetchFailure(set, fetched.reason));
      }
    }
    const results: RuleResult[] = sets.map((set, i) => {
      const rule = rules[i]!;
      return {
        id: rule.id,
        name: rule.name,
        status: rule.status,
        outcome: set.outcome,
        definition: ruleDefinitionDigest(rule),
        capped: false,
        conditions: set.conditions.map(recordedCondition),
      };
    });
    const rulesById = options.rules ? new Map(options.rules.map((r) => [r.id, r] as const)) : snapshot.rulesById;
    for (const result of results) {
      const rule = rulesById.get(result.id);
      if (!rule || result.outcome !== 'passed' || rule.maxDailyActions === null) continue;
      // Only live evaluations count toward the daily cap; a retroaction counts toward nothing.
      if (options.environment !== 'LIVE' || !publishes(rule, options.environment) || rule.actionIds.length === 0) continue;
      const allowed = await this.caps.take(context, { id: rule.id, maxDailyActions: rule.maxDailyActions }, item, version, await content());
      result.capped = !allowed;
    }
    const actions = collectActions(results, rulesById, snapshot.actions, snapshot.policies, options.environment);
    return {
      item: { id: item.id, typeId: item.typeId, typeName: itemType.name },
      version,
      environment: options.environment,
      subject: item.subject,
      rules: results,
      actions,
    };
  }

  /** Rules run in parallel where their signals are asynchronous; in-memory ones answer at once. */
  private async evaluateRules(rules: readonly RuleDefinition[], ctx: SignalContext): Promise<SetEvaluation[]> {
    const deps = { registry: this.registry, memo: this.memo };
    const evaluations = rules.map((rule) => evaluateConditionSet(rule.conditionSet, ctx, deps));
    return evaluations.some((e) => e instanceof Promise) ? Promise.all(evaluations) : (evaluations as SetEvaluation[]);
  }

  /** The whole item from the customer (docs/partial-items.md); without the partial-items module, a reason. */
  private async fetchWholeItem(context: CommandContext, item: ItemToEvaluate): Promise<PartialFetchOutcome> {
    if (!this.partials) return { ok: false, reason: 'no partial-items endpoint in this deployment' };
    const [outcome] = await this.partials.fetchItems(context, [{ id: item.id, typeId: item.typeId }], 'missing-fields');
    return outcome ?? { ok: false, reason: 'the partial-items endpoint returned nothing for the item' };
  }

  /** The image URLs to fetch and hash for this item (none for the legacy endpoint's items). */
  private mediaUrls(item: ItemToEvaluate, itemType: ItemTypeDefinition): string[] {
    if (!this.media || item.source === 'content') return [];
    return imageUrls(
      item.data,
      itemType.fields.filter((f) => f.type === 'IMAGE').map((f) => f.name),
    );
  }

  /** Fetches and hashes the item's images once per version, before any image signal needs them. */
  private async hashMedia(context: CommandContext, item: ItemToEvaluate, version: number, urls: string[]): Promise<ReadonlyMap<string, MediaResult>> {
    const results = await this.media!.hashItemMedia(context, item, version, urls);
    return new Map(results.map((r) => [r.url, r] as const));
  }

  private signalContext(
    orgId: string,
    item: ItemToEvaluate,
    itemType: ItemTypeDefinition,
    snapshot: CatalogSnapshot,
    version: number,
    media: ReadonlyMap<string, MediaResult>,
    partial = false,
  ): SignalContext {
    const evaluated: EvaluatedItem = {
      orgId,
      id: item.id,
      typeId: item.typeId,
      itemType,
      data: item.data,
      creator: item.creator,
      version,
      ...(partial ? { partial } : {}),
    };
    return {
      media: (url) => media.get(url),
      orgId,
      item: evaluated,
      textBank: (bankId) => snapshot.textBanks.get(bankId),
      hashBanks: snapshot.hashBanks,
      creatorSubmissionCount: async (creator, windowSeconds) => {
        // The count must include every submission already in the log, this one too: after a
        // restart, or while a burst keeps the read model behind, it would otherwise count too few.
        await this.projections.catchUp(creatorSubmissionsProjection.name);
        return countWithin(
          await this.readStore.get<CreatorSubmissionsDoc>(CREATOR_SUBMISSIONS, creatorSubmissionsDocId(orgId, creator)),
          windowSeconds,
          this.clock.now(),
        );
      },
      // Answered by the enforcement module (USER_STANDING, user-standing.ts); without it the leaves are unknown.
      ...(this.standing && this.userStanding(orgId, this.standing)),
      postJson: async (url, body, timeoutMs) => {
        const res = await this.http.request({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          timeoutMs,
          maxBytes: 1024 * 1024,
        });
        if (res.status < 200 || res.status >= 300) throw new Error(`HTTP signal answered ${res.status}`);
        return JSON.parse(res.body.toString('utf8')) as unknown;
      },
      now: () => this.clock.now(),
    };
  }

  private userStanding(orgId: string, standing: UserStanding): Pick<SignalContext, 'userStrikeCount' | 'userScore'> {
    return { userStrikeCount: (user) => standing.strikeCount(orgId, user), userScore: (user) => standing.score(orgId, user) };
  }
}
