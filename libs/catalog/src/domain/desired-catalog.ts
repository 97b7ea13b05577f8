import { createHash } from 'node:crypto';
import type { HashBankEntity } from './catalog.events.js';
import type { HashType, OrgConfig, RoutingRuleDefinition } from './catalog.model.js';
import type { DesiredCatalog } from './org-config.decider.js';

export interface DesiredHashes {
  readonly bankId: string;
  readonly hashType: HashType;
  readonly hashes: readonly string[];
}

/** A validated configuration file as the catalog records it: entities, settings, bank hashes. */
export function desiredCatalog(config: OrgConfig): { catalog: DesiredCatalog; hashes: DesiredHashes[] } {
  const ordered = (rules: RoutingRuleDefinition[]) => rules.map((r, order) => ({ ...r, order }));
  return {
    // Events hold JSON: normalize now (undefined keys dropped) so that a re-apply compares equal.
    catalog: asJson({
      entities: {
        itemType: config.itemTypes,
        policy: config.policies,
        action: config.actions,
        textBank: config.textBanks,
        hashBank: config.hashBanks.map((b): HashBankEntity => ({
          id: b.id,
          name: b.name,
          hashType: b.hashType,
          maxDistance: b.maxDistance,
          configHashes: { count: b.hashes.length, digest: digest(b.hashes) },
        })),
        rule: config.rules,
        queue: config.queues,
        routingRule: ordered(config.routingRules),
        appealRoutingRule: ordered(config.appealRoutingRules),
      },
      settings: config.org.settings,
      strikes: config.strikes,
      appeals: config.appeals,
      sso: config.sso,
      scores: config.scores,
      inboundTopic: config.inboundTopic,
      partialItems: config.partialItems,
      transparency: config.transparency,
      management: config.management,
    }),
    hashes: config.hashBanks.map((b) => ({ bankId: b.id, hashType: b.hashType, hashes: b.hashes })),
  };
}

const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Changes whenever the declared hash list does, so the bank's config event records every change. */
function digest(hashes: readonly string[]): string {
  const h = createHash('sha256');
  for (const hash of hashes) h.update(hash).update('\n');
  return h.digest('hex');
}

/** The items in slices of at most `size`, in order. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
