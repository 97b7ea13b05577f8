import type { ProjectionContext } from '#warden/eventstore';
import {
  type Counts,
  INSIGHTS_QUEUE_MINUTES,
  INSIGHTS_QUEUES,
  type InsightsQueueDoc,
  type InsightsQueueMinutesDoc,
  type LegacyInsightsQueueDoc,
  MINUTE_FANOUT,
  MINUTE_LEVELS,
  queueDocId,
  queueMinutesDocId,
} from './insights.read-model.js';

/** The span (in minutes) of a level's children: MINUTE_FANOUT^level (the root's children: level MINUTE_LEVELS). */
const span = (level: number) => MINUTE_FANOUT ** level;

/** Adds n to a count, removing it when it falls to 0 or below (a job closed twice never counts negative). */
function bump(counts: Counts, key: number, n: number): void {
  const k = String(key);
  const next = (counts[k] ?? 0) + n;
  if (next > 0) counts[k] = next;
  else delete counts[k];
}

/** The keys with an open job, smallest first (at most MINUTE_FANOUT of them). */
const openKeys = (counts: Counts): number[] =>
  Object.keys(counts)
    .filter((k) => counts[k]! > 0)
    .map(Number)
    .sort((a, b) => a - b);

interface Node {
  readonly id: string;
  readonly doc: InsightsQueueMinutesDoc;
  /** Whether the store (or the batch) holds it: a node emptied is then deleted, else not written. */
  readonly existed: boolean;
  changed: boolean;
}

/**
 * A queue's open jobs as one event reads and changes them (the tree of InsightsQueueMinutesDoc,
 * rooted in the queue's document): loaded with the queue's document, the nodes an event needs
 * read once each, and written by `save` once the event has changed them. Every write is a count
 * moved by the event's own job, computed from the document's own stored state: the unit of work
 * skips it for a document that already reflects the event, so a redelivery counts nothing twice.
 */
export class OpenMinutes {
  private readonly nodes = new Map<string, Node>();

  private constructor(
    private readonly ctx: ProjectionContext,
    private readonly id: string,
    private readonly queue: InsightsQueueDoc,
  ) {}

  /**
   * The queue's state; a document an earlier release wrote (every open minute in one map) has its
   * minutes moved into the tree here, once: the first event that changes the queue writes them
   * with its own change, and the queue's document without them.
   */
  static async load(ctx: ProjectionContext, orgId: string, queueId: string): Promise<OpenMinutes> {
    const id = queueDocId(orgId, queueId);
    const stored = await ctx.get<InsightsQueueDoc | LegacyInsightsQueueDoc>(INSIGHTS_QUEUES, id);
    const state = new OpenMinutes(ctx, id, { orgId, queueId, depth: stored?.depth ?? 0, open: stored && 'open' in stored ? stored.open : {} });
    if (stored && 'openByMinute' in stored)
      for (const [minute, n] of Object.entries(stored.openByMinute)) if (n > 0 && Number.isSafeInteger(Number(minute))) await state.add(Number(minute), n);
    return state;
  }

  get depth(): number {
    return this.queue.depth;
  }

  /** A job opened at this minute. */
  async opened(minute: number): Promise<void> {
    this.queue.depth += 1;
    await this.add(minute, 1);
  }

  /** A job that opened at this minute closed. */
  async closed(minute: number): Promise<void> {
    this.queue.depth = Math.max(0, this.queue.depth - 1);
    await this.add(minute, -1);
  }

  /** The minute the oldest open job opened (null: none open): the smallest key at each level, one node per level. */
  async oldestMinute(): Promise<number | null> {
    // A key whose subtree holds no open job is passed over (only a redelivery, reading documents
    // that already reflect later events beside others that do not, can meet one).
    for (const key of openKeys(this.queue.open)) {
      const found = await this.oldestUnder(MINUTE_LEVELS - 1, key);
      if (found !== null) return found;
    }
    return null;
  }

  /** Writes the nodes the event changed (deleting those it emptied), then the queue's document. */
  save(): void {
    for (const node of this.nodes.values()) {
      if (!node.changed) continue;
      if (Object.keys(node.doc.counts).length > 0) this.ctx.put(INSIGHTS_QUEUE_MINUTES, node.id, node.doc as never);
      else if (node.existed) this.ctx.delete(INSIGHTS_QUEUE_MINUTES, node.id);
    }
    this.ctx.put(INSIGHTS_QUEUES, this.id, this.queue as never);
  }

  private async oldestUnder(level: number, index: number): Promise<number | null> {
    const keys = openKeys((await this.node(level, index)).doc.counts);
    if (level === 0) return keys[0] ?? null;
    for (const key of keys) {
      const found = await this.oldestUnder(level - 1, key);
      if (found !== null) return found;
    }
    return null;
  }

  /** Adds n open jobs at this minute: to one node per level and to the root. */
  private async add(minute: number, n: number): Promise<void> {
    for (let level = 0; level < MINUTE_LEVELS; level++) {
      const node = await this.node(level, Math.floor(minute / span(level + 1)));
      bump(node.doc.counts, Math.floor(minute / span(level)), n);
      node.changed = true;
    }
    bump(this.queue.open, Math.floor(minute / span(MINUTE_LEVELS)), n);
  }

  private async node(level: number, index: number): Promise<Node> {
    const id = queueMinutesDocId(this.queue.orgId, this.queue.queueId, level, index);
    let node = this.nodes.get(id);
    if (!node) {
      const stored = await this.ctx.get<InsightsQueueMinutesDoc>(INSIGHTS_QUEUE_MINUTES, id);
      const doc = stored ?? { orgId: this.queue.orgId, queueId: this.queue.queueId, level, index, counts: {} };
      this.nodes.set(id, (node = { id, doc, existed: stored !== undefined, changed: false }));
    }
    return node;
  }
}
