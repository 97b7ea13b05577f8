import { LRUCache } from 'lru-cache';
import { userOfSubject } from '#warden/kernel';
import type { FetchedItem } from '#warden/rules';
import type { ItemRef } from '../domain/partial-items-exchange.js';

const keyOf = (orgId: string, ref: ItemRef) => `${orgId}\u0000${ref.typeId}\u0000${ref.id}`;
const subjectKeyOf = (orgId: string, subject: string) => `${orgId}\u0000${subject}`;

interface Cached {
  readonly item: FetchedItem;
  readonly orgId: string;
  /** Whose data it is: the subject its version is sealed under, which a GDPR erasure names. */
  readonly subject: string;
}

/** Where a request stood among erasures when it was sent: what `keep` compares with. */
export type ErasureMark = number;

/**
 * Whole items in one process's memory for their organization's cache time (docs/partial-items.md),
 * forgotten when the subject whose data they are is erased (docs/gdpr.md): those sealed under its
 * key and its own user item. An answer that an erasure overtook (the request sent before the
 * erasure was seen, the answer arriving after) is not kept either: `mark()` before sending,
 * `keep(mark, …)` with the answer.
 */
export class FetchedItemsCache {
  private readonly items: LRUCache<string, Cached>;
  /** Erasures seen; `erasedAt` holds the count at each subject's last one. */
  private erasures = 0;
  /** The count when erasures were last lost track of (`forgetAll`): no answer sent before is kept. */
  private lostAt = 0;
  private readonly erasedAt: LRUCache<string, number>;

  constructor(max: number) {
    this.items = new LRUCache({ max });
    // Bounded like the items: an erasure older than `max` others concerns no request still out.
    this.erasedAt = new LRUCache({ max });
  }

  get(orgId: string, ref: ItemRef): FetchedItem | undefined {
    return this.items.get(keyOf(orgId, ref))?.item;
  }

  mark(): ErasureMark {
    return this.erasures;
  }

  /** Keeps `item` for `ttlMs`, unless its subject was erased since `mark`. Whether it was kept. */
  keep(mark: ErasureMark, orgId: string, item: FetchedItem, subject: string, ttlMs: number): boolean {
    if (mark < this.lostAt || (this.erasedAt.get(subjectKeyOf(orgId, subject)) ?? 0) > mark) return false;
    this.items.set(keyOf(orgId, item), { item, orgId, subject }, { ttl: ttlMs });
    return true;
  }

  /**
   * Erasures were not followed for a while (the log's subscription failed): one recorded meanwhile
   * may not be seen until the subscription catches up again. Everything leaves memory, and no answer
   * to a request sent before is kept: how many items left.
   */
  forgetAll(): number {
    const gone = this.items.size;
    this.items.clear();
    this.lostAt = ++this.erasures;
    return gone;
  }

  /** The subject's erasure (requested or completed): how many items left memory. */
  forget(orgId: string, subject: string): number {
    this.erasedAt.set(subjectKeyOf(orgId, subject), ++this.erasures);
    const own = keyOf(orgId, userOfSubject(subject));
    const gone = [...this.items.entries()].filter(([key, entry]) => key === own || (entry.orgId === orgId && entry.subject === subject)).map(([key]) => key);
    for (const key of gone) this.items.delete(key);
    return gone.length;
  }
}
