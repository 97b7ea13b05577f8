import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { defaultQueueOf, effectiveQueues, GetLiveCatalogQuery, type PolicyDefinition, type QueueDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import type { ItemIdentifier } from '#warden/ingestion';
import {
  NOTHING_READ,
  REVIEW_ROUTING,
  type ReviewRouting,
  type RoutedQueue,
  routedQueue,
  type RoutingCatalog,
  type RoutingContent,
  routingContentAt,
  routingInputs,
} from '#warden/rules';
import { EVENT_STORE } from '#warden/storage';
import type { JobPolicy } from '../domain/review-job.events.js';

/**
 * What an enqueue needs of the organization's configuration, read once at the start of its pass
 * and passed down (docs/architecture.md, "Main flows"): the queues, the policies a job names, and
 * what the routing evaluates (item types, the routing rules of the kind, the banks).
 */
export interface ReviewCatalog {
  /** `report`: the routing rules (rules' enqueues here; reports are routed by the rules engine); `appeal`: the appeal routing rules. */
  readonly kind: 'report' | 'appeal';
  /** As jobs go to them: the declared queues, the built-in ones beside (effective-queues.ts). */
  readonly queues: readonly QueueDefinition[];
  readonly policies: readonly PolicyDefinition[];
  readonly routing: RoutingCatalog;
}

/** The item type's display name as jobs keep it; its id once the type is archived. */
export const typeNameIn = (catalog: ReviewCatalog, typeId: string): string => catalog.routing.itemTypes.find((t) => t.id === typeId)?.name ?? typeId;

/** The policies a job names, as jobs keep them (name and penalty); an archived one is left out. */
export const jobPoliciesIn = (catalog: ReviewCatalog, ids: readonly string[]): JobPolicy[] =>
  catalog.policies.filter((p) => ids.includes(p.id)).map((p) => ({ id: p.id, name: p.name, penalty: p.penalty }));

/**
 * Where an item bound for review goes: the organization's routing rules, evaluated by the rules
 * engine (its REVIEW_ROUTING port, called once with everything it evaluates) on the item version
 * the request names; the default queue when none passes. A rule naming a queue the organization
 * no longer has also falls back to the default.
 */
@Injectable()
export class ReviewRouter {
  constructor(
    private readonly queries: QueryBus,
    @Inject(REVIEW_ROUTING) private readonly routing: ReviewRouting,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * The one read of the catalog an enqueue makes. The item was accepted against a catalog this
   * process may not have read yet (applied moments ago, or read models catching up after a start):
   * its type is expected, so the catalog is caught up when it is missing.
   */
  async catalog(orgId: string, kind: 'report' | 'appeal', typeId: string): Promise<ReviewCatalog> {
    const rulesKind = kind === 'appeal' ? 'appealRoutingRule' : 'routingRule';
    const read = await this.queries.execute(
      new GetLiveCatalogQuery(orgId, ['itemType', 'policy', 'queue', 'textBank', 'hashBank', rulesKind], { itemType: [typeId] }),
    );
    return {
      kind,
      queues: effectiveQueues(read.queue),
      policies: read.policy,
      routing: { itemTypes: read.itemType, routingRules: read[rulesKind], textBanks: read.textBank, hashBanks: read.hashBank },
    };
  }

  /**
   * `item`: the version the request names (read back from the log only if a routing rule looks at
   * it), or its content when the caller has it (an appeal's). No report inputs: conditions on them
   * are unknown (reports are routed by the rules engine itself, `libs/rules/src/routing/report-router.ts`).
   */
  async route(
    orgId: string,
    catalog: ReviewCatalog,
    item: ItemIdentifier & ({ readonly version: number } | { readonly content: RoutingContent }),
  ): Promise<RoutedQueue> {
    const { id, typeId } = item;
    const reads = routingInputs(catalog.routing, typeId);
    const content = 'content' in item ? item.content : reads.content ? await routingContentAt(this.events, orgId, item, item.version) : NOTHING_READ;
    const route = await this.routing.route({ orgId, item: { id, typeId }, catalog: catalog.routing, content, report: null });
    const { queues } = catalog;
    const fallback = (catalog.kind === 'appeal' ? queues.find((q) => q.isAppealsDefault) : undefined) ?? defaultQueueOf(queues);
    return routedQueue(route, queues, fallback);
  }
}
