import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  type ActionDefinition,
  GetLiveEntitiesQuery,
  type HashType,
  type ItemTypeDefinition,
  type PolicyDefinition,
  type RuleDefinition,
  type TextBankDefinition,
} from '#warden/catalog';

export interface CatalogSnapshot {
  readonly itemTypes: ReadonlyMap<string, ItemTypeDefinition>;
  readonly rules: readonly RuleDefinition[];
  readonly rulesById: ReadonlyMap<string, RuleDefinition>;
  readonly actions: ReadonlyMap<string, ActionDefinition>;
  readonly policies: ReadonlyMap<string, PolicyDefinition>;
  readonly textBanks: ReadonlyMap<string, TextBankDefinition>;
  readonly hashBanks: ReadonlyArray<{ readonly id: string; readonly hashType: HashType; readonly maxDistance: number | null }>;
}

/** How long an evaluation may use a catalog snapshot: an apply takes effect within this. */
const TTL_MS = 1000;

/**
 * Per-organization catalog snapshots for evaluation, so that thousands of items per second do
 * not each re-read and re-parse the rules.
 */
@Injectable()
export class CatalogSnapshots {
  private readonly cache = new Map<string, { at: number; snapshot: Promise<CatalogSnapshot> }>();

  constructor(private readonly queries: QueryBus) {}

  get(orgId: string): Promise<CatalogSnapshot> {
    const now = Date.now();
    const hit = this.cache.get(orgId);
    if (hit && now - hit.at < TTL_MS) return hit.snapshot;
    const snapshot = this.load(orgId);
    this.cache.set(orgId, { at: now, snapshot });
    snapshot.catch(() => this.cache.delete(orgId));
    return snapshot;
  }

  /** A snapshot read now, for when the cached one may predate what is being evaluated. */
  refresh(orgId: string): Promise<CatalogSnapshot> {
    this.cache.delete(orgId);
    return this.get(orgId);
  }

  private async load(orgId: string): Promise<CatalogSnapshot> {
    const [itemTypes, rules, actions, policies, textBanks, hashBanks] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'rule')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'action')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'textBank')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'hashBank')),
    ]);
    const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x] as const));
    return {
      itemTypes: byId(itemTypes),
      rules,
      rulesById: byId(rules),
      actions: byId(actions),
      policies: byId(policies),
      textBanks: byId(textBanks),
      hashBanks: hashBanks.map((b) => ({ id: b.id, hashType: b.hashType, maxDistance: b.maxDistance })),
    };
  }
}
