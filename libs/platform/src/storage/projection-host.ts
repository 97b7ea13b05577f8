import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Projection, ProjectionRunner } from '../../../eventstore/src/index.js';
import { Metrics } from '../observability/metrics.js';
import { STORAGE } from './storage.tokens.js';
import type { Storage } from './storage.js';

/**
 * Runs every registered projection. Modules register theirs at init; the worker role starts
 * them; any role can ask for a synchronous catch-up (e.g. before answering "unknown key").
 */
@Injectable()
export class ProjectionHost {
  private readonly logger = new Logger('projections');
  private readonly runners = new Map<string, ProjectionRunner>();
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly metrics: Metrics,
  ) {}

  register(projection: Projection): void {
    if (this.runners.has(projection.name)) throw new Error(`Projection ${projection.name} registered twice`);
    this.runners.set(
      projection.name,
      new ProjectionRunner(projection, this.storage.events, this.storage.readStore, {
        onError: (name, error) =>
          this.logger.warn({ msg: 'projection restarting', projection: name, error: String(error) }),
        onProgress: (name, position) => this.metrics.projectionPosition.set({ projection: name }, position),
      }),
    );
  }

  projections(): Projection[] {
    return [...this.runners.values()].map((r) => r.projection);
  }

  /** Creates the indexes the projections declare (every role: the api role queries them too). */
  async ensureIndexes(): Promise<void> {
    for (const projection of this.projections()) {
      for (const index of projection.indexes ?? []) await this.storage.readStore.ensureIndex(index.collection, index.fields);
    }
  }

  async startAll(): Promise<void> {
    for (const runner of this.runners.values()) await runner.start();
    this.lagTimer = setInterval(() => void this.recordLag(), 5000);
    this.lagTimer.unref();
  }

  async catchUp(name: string): Promise<void> {
    const runner = this.runners.get(name);
    if (!runner) throw new Error(`Unknown projection ${name}`);
    await runner.catchUp();
  }

  async stopAll(): Promise<void> {
    if (this.lagTimer) clearInterval(this.lagTimer);
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
  }

  private async recordLag(): Promise<void> {
    try {
      const head = await this.storage.events.headPosition();
      for (const r of this.runners.values()) {
        this.metrics.subscriptionLag.set({ projection: r.projection.name }, Math.max(0, head - r.checkpoint));
      }
    } catch {
      // The readiness probe reports an unreachable store; the gauge just keeps its last value.
    }
  }
}
