import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ItemTypeDefinition, RuleDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier, ItemVersion } from '#warden/ingestion';
import { type Clock, type CommandContext } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { EVENT_STORE, ProjectionHost } from '#warden/storage';
import { evaluateConditionSet } from '../domain/condition-evaluator.js';
import type { Environment, Evaluation } from '../domain/evaluation.events.js';
import type { MediaResult, SetEvaluation, SignalContext } from '../domain/evaluation.model.js';
import { evaluationStream } from '../domain/evaluation.streams.js';
import { firstPassingRoute, type OrderedRoutingRule, REPORT_DATA_KEY, type Route, type RoutingReport } from '../domain/review-routing.js';
import { capsToDecide, type DraftEvaluation, ruleResults, withFetchFailure, withoutPersonalData } from '../domain/rule-results.js';
import { rulesFor } from '../domain/rule-selection.js';
import { SignalMemo } from '../domain/signal-memo.js';
import { SignalRegistry } from '../domain/signal-registry.js';
import { needsWholeItem } from '../domain/whole-item-fetch.js';
import { type CatalogSnapshot, CatalogSnapshots } from './catalog-snapshots.js';
import { type HashedMedia, imageUrls, MEDIA_HASHER, type MediaHasher } from './media-hasher.js';
import { PARTIAL_ITEMS, type PartialFetchOutcome, type PartialItemSource } from './partial-items.js';
import { readRecordedEvaluation } from './recorded-evaluation.js';
import { NO_MEDIA, SignalContextFactory } from './signal-context.factory.js';

export interface ItemToEvaluate {
  readonly id: string;
  readonly typeId: string;
  readonly data: { [field: string]: unknown };
  readonly creator: ItemIdentifier | null;
  readonly subject: string;
  /** The legacy endpoint skips image hashing. */
  readonly source?: ItemVersion['source'];
  /** `partial`: the item may lack fields its rules need; the whole item is fetched when they do (docs/partial-items.md). */
  readonly typeSchemaVariant?: ItemVersion['typeSchemaVariant'];
}

/** A recorded version (ingestion's reader) as the item the rules evaluate; an erased one has no data left. */
export function submittedItem(version: ItemVersion): ItemToEvaluate & { source: ItemVersion['source'] } {
  const { itemId: id, typeId, data, creator, subject, source, typeSchemaVariant } = version;
  return { id, typeId, data: data ?? {}, creator, subject, source, typeSchemaVariant };
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
export const runKey = (options: EvaluationOptions) =>
  options.rules ? `${options.environment}:${options.rules.map((r) => r.id).join(',')}` : options.environment;

export const SIGNAL_REGISTRY = Symbol('SignalRegistry');

/**
 * An item version evaluated, nothing written yet: what the recorder (evaluation-recorder.ts)
 * appends — the media hashed for it, the daily caps its passed rules take, the evaluation itself.
 */
export type PreparedEvaluation =
  | {
      /** The version was found evaluated already (this run): nothing to record. */
      readonly kind: 'recorded';
      readonly stream: string;
      readonly evaluation: Evaluation;
    }
  | {
      readonly kind: 'new';
      readonly stream: string;
      readonly context: CommandContext;
      readonly options: EvaluationOptions;
      readonly item: ItemToEvaluate;
      readonly draft: DraftEvaluation;
      /** Media hashed for this evaluation that the log does not hold yet. */
      readonly media: readonly MediaResult[];
    };

/** The context of the evaluation of a recorded submission: caused by its ItemSubmitted. */
export const submissionContext = (version: ItemVersion): CommandContext => ({
  orgId: version.orgId,
  correlationId: version.correlationId,
  causationId: version.eventId,
  actor: 'rules-engine',
});

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

/**
 * Evaluates an item version against its rules: reads the catalog (a snapshot), the item's media
 * hashes (fetched and hashed when not recorded yet), the whole item when a partial one needs it,
 * and whatever the signals read, then runs the pure condition evaluator and rule results
 * (domain/condition-evaluator.ts, domain/rule-results.ts). Appends nothing to the log of its own:
 * the recorder does, after it (docs/rules.md, "Evaluation"). The one write it may cause is the
 * partial-items extension's: a whole item fetched from the customer is recorded as a version of
 * the item (docs/partial-items.md).
 */
@Injectable()
export class ItemEvaluator {
  private readonly logger = new Logger('rules');
  private readonly memo = new SignalMemo();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SIGNAL_REGISTRY) private readonly registry: SignalRegistry,
    private readonly snapshots: CatalogSnapshots,
    private readonly contexts: SignalContextFactory,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Optional() @Inject(MEDIA_HASHER) private readonly media?: MediaHasher,
    @Optional() @Inject(PARTIAL_ITEMS) private readonly partials?: PartialItemSource,
  ) {}

  /**
   * Evaluates without writing; undefined when the item's type no longer exists. A version found
   * already evaluated (in this environment and run) gives that record.
   */
  async prepare(context: CommandContext, item: ItemToEvaluate, version: number, options: EvaluationOptions): Promise<PreparedEvaluation | undefined> {
    const stream = evaluationStream(context.orgId, item.typeId, item.id, version, runKey(options));
    const existing = options.likelyNew ? undefined : await readRecordedEvaluation(this.events, stream);
    if (existing) return { kind: 'recorded', stream, evaluation: existing };
    const found = await this.catalogFor(context.orgId, item.typeId);
    if (!found) {
      this.logger.warn({ msg: 'item type no longer exists; item not evaluated', orgId: context.orgId, typeId: item.typeId });
      return undefined;
    }
    const { draft, media } = await this.evaluate(context, item, found.itemType, version, found.snapshot, options);
    return { kind: 'new', stream, context, options, item, draft, media };
  }

  /** Prepares the evaluation of a recorded submission (the worker's reactor and the legacy sync path alike). */
  prepareSubmission(version: ItemVersion): Promise<PreparedEvaluation | undefined> {
    return this.prepare(submissionContext(version), submittedItem(version), version.version, { environment: 'LIVE', likelyNew: true });
  }

  /**
   * Routes an item bound for review: the routing rules' condition sets, in the order given, on
   * the same condition evaluator and signal context as a rule evaluation, with the report's
   * routing inputs under `data.__report` (where the evaluator resolves REPORT_REASON,
   * REPORTED_POLICY and REPORT_COUNT). The item's type and the banks come from the caller's read
   * of the catalog (the routing port's request): nothing is read here. Images are not fetched
   * again: image signals on a routing rule see no media and are unknown. Records nothing.
   */
  async route(
    orgId: string,
    item: Pick<ItemToEvaluate, 'id' | 'typeId' | 'data' | 'creator'>,
    itemType: ItemTypeDefinition,
    banks: Pick<CatalogSnapshot, 'textBanks' | 'hashBanks'>,
    rules: readonly OrderedRoutingRule[],
    report: RoutingReport | null,
  ): Promise<Route | null> {
    // Only the routing puts report inputs on an item: a customer's own `__report` field is not one.
    const { [REPORT_DATA_KEY]: _customers, ...fields } = item.data;
    const data = report === null ? fields : { ...fields, [REPORT_DATA_KEY]: { ...report } };
    const ctx = this.contexts.create(orgId, { ...item, data }, itemType, banks, 0, NO_MEDIA);
    const deps = { registry: this.registry, memo: this.memo };
    const route = await firstPassingRoute(rules, (set) => evaluateConditionSet(set, ctx, deps));
    return route && { ...route, conditions: route.conditions.map(withoutPersonalData) };
  }

  /**
   * The catalog snapshot and the item's type. The item was accepted against a catalog this
   * process may not have read yet: applied moments ago, or read models still catching up after a
   * start or a rebuild. Only a type missing from the caught-up catalog was really archived.
   */
  private async catalogFor(orgId: string, typeId: string): Promise<{ snapshot: CatalogSnapshot; itemType: ItemTypeDefinition } | undefined> {
    let snapshot = await this.snapshots.get(orgId);
    let itemType = snapshot.itemTypes.get(typeId);
    if (!itemType) {
      await this.projections.catchUp('catalog');
      snapshot = await this.snapshots.refresh(orgId);
      itemType = snapshot.itemTypes.get(typeId);
    }
    return itemType && { snapshot, itemType };
  }

  private async evaluate(
    context: CommandContext,
    item: ItemToEvaluate,
    itemType: ItemTypeDefinition,
    version: number,
    snapshot: CatalogSnapshot,
    options: EvaluationOptions,
  ): Promise<{ draft: DraftEvaluation; media: MediaResult[] }> {
    const now = this.clock.now();
    const rules = options.rules ?? rulesFor(snapshot.rules, item.typeId, now);
    const hashed: HashedMedia[] = [];
    const urls = this.mediaUrls(item, itemType);
    let media = urls.length === 0 ? NO_MEDIA : await this.hashMedia(context, item, version, urls, hashed);
    const partial = item.typeSchemaVariant === 'partial';
    let sets = await this.evaluateRules(rules, this.contexts.create(context.orgId, item, itemType, snapshot, version, media, partial));
    if (partial && rules.length > 0 && needsWholeItem(sets)) {
      // Evaluated on what was sent first: only a rule those fields leave undecided makes the fetch.
      // A backtest only reports (docs/rules.md): it neither calls the platform nor records the whole item as a version.
      const fetched: PartialFetchOutcome =
        options.environment === 'BACKTEST'
          ? { ok: false, reason: 'a backtest fetches no whole item from the platform' }
          : await this.fetchWholeItem(context, item);
      if (fetched.ok) {
        const whole = wholeItem(item, itemType, fetched.item);
        const more = this.mediaUrls(whole, itemType).filter((url) => !media.has(url));
        if (more.length > 0) media = new Map([...media, ...(await this.hashMedia(context, item, version, more, hashed))]);
        sets = await this.evaluateRules(
          rules,
          this.contexts.create(context.orgId, whole, itemType, snapshot, version, media, fetched.item.typeSchemaVariant === 'partial'),
        );
      } else {
        sets = sets.map((set) => withFetchFailure(set, fetched.reason));
      }
    }
    const results = ruleResults(rules, sets);
    const rulesById = options.rules ? new Map(options.rules.map((r) => [r.id, r] as const)) : snapshot.rulesById;
    const draft: DraftEvaluation = {
      item: { id: item.id, typeId: item.typeId, typeName: itemType.name },
      version,
      environment: options.environment,
      subject: item.subject,
      rules: results,
      rulesById,
      actions: snapshot.actions,
      policies: snapshot.policies,
      caps: capsToDecide(results, rulesById, options.environment),
    };
    return { draft, media: hashed.filter((h) => !h.recorded).map((h) => h.result) };
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

  /** The item's images hashed (or their recorded results read) once per version, before any image signal needs them. */
  private async hashMedia(
    context: CommandContext,
    item: ItemToEvaluate,
    version: number,
    urls: string[],
    hashed: HashedMedia[],
  ): Promise<ReadonlyMap<string, MediaResult>> {
    const results = await this.media!.hashItemMedia(context, item, version, urls);
    hashed.push(...results);
    return new Map(results.map((r) => [r.result.url, r.result] as const));
  }
}
