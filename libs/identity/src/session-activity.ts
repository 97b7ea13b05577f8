import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SESSION_TTL_MS, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import type { ReadStore, Write } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import { CONSOLE_SESSION_ACTIVITY, type ConsoleSessionActivityDoc } from './projections/users.read-model.js';

/** Uses are written in one batch this often, not once per request (as API keys' last use is). */
export const ACTIVITY_FLUSH_MS = 10_000;
/** Activity of sessions past their whole life, deleted at most this many per flush. */
const PRUNE_BATCH = 500;

/**
 * The console's idle timeout (docs/console-access.md, "Sessions"): a session unused for longer
 * than WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS is refused, as an expired one is, so that a console left
 * open (or a cookie taken from it) stops working long before the session's 30 days. A session's
 * last use is this process's own, kept in memory, or another process's, read from the activity
 * read model, which every process writes its uses to every ACTIVITY_FLUSH_MS: with several
 * processes a session is refused up to that much later than the timeout, never sooner.
 */
@Injectable()
export class SessionActivity implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('console-sessions');
  /** Each session's last use seen here (ms), until it is older than the timeout. */
  private readonly lastUse = new Map<string, number>();
  /** Sessions used since the last flush. */
  private readonly unflushed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private indexed: Promise<void> | undefined;
  private readonly timeoutMs: number;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(WARDEN_CONFIG) config: WardenConfig,
  ) {
    this.timeoutMs = config.consoleIdleTimeoutSeconds * 1000;
  }

  onModuleInit(): void {
    if (this.timeoutMs === 0) return;
    this.timer = setInterval(() => void this.flush(Date.now()), ACTIVITY_FLUSH_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush(Date.now());
  }

  /**
   * False when the session (opened at `openedAt`, ms) has gone unused for longer than the timeout at
   * `now`; otherwise records this use and answers true. The activity read model is read only when
   * this process's own record says idle (another process may have served the session since).
   */
  async use(sessionId: string, openedAt: number, now: number): Promise<boolean> {
    if (this.timeoutMs === 0) return true;
    let last = Math.max(openedAt, this.lastUse.get(sessionId) ?? 0);
    if (now - last > this.timeoutMs) {
      const recorded = await this.readStore.get<ConsoleSessionActivityDoc>(CONSOLE_SESSION_ACTIVITY, sessionId);
      if (recorded) last = Math.max(last, Date.parse(recorded.lastUsedAt));
      if (now - last > this.timeoutMs) return false;
    }
    this.lastUse.set(sessionId, now);
    this.unflushed.add(sessionId);
    return true;
  }

  /**
   * Writes the uses since the last flush, forgets those older than the timeout (their read would
   * say idle anyway) and, with them, deletes the activity of sessions past their whole life. One
   * at a time.
   */
  flush(now: number): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce(now));
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flushOnce(now: number): Promise<void> {
    const used = [...this.unflushed];
    this.unflushed.clear();
    for (const [sessionId, at] of this.lastUse) if (now - at > this.timeoutMs) this.lastUse.delete(sessionId);
    // A process that serves no console session (a worker, the CLI) writes nothing, and prunes nothing.
    if (used.length === 0) return;
    try {
      // The pruning's look-up of the oldest uses, made by the first process to write one.
      this.indexed ??= this.readStore.ensureIndex(CONSOLE_SESSION_ACTIVITY, ['lastUsedAt']);
      await this.indexed;
      const expired = await this.readStore.find<ConsoleSessionActivityDoc>(
        CONSOLE_SESSION_ACTIVITY,
        { lastUsedAt: { lt: new Date(now - SESSION_TTL_MS).toISOString() } },
        { sort: [{ field: 'lastUsedAt', direction: 'asc' }], limit: PRUNE_BATCH },
      );
      const writes: Write[] = expired.map((doc) => ({ op: 'delete', collection: CONSOLE_SESSION_ACTIVITY, id: doc.sessionId }));
      for (const sessionId of used) {
        const at = this.lastUse.get(sessionId);
        if (at !== undefined)
          writes.push({ op: 'put', collection: CONSOLE_SESSION_ACTIVITY, id: sessionId, doc: { sessionId, lastUsedAt: new Date(at).toISOString() } });
      }
      if (writes.length > 0) await this.readStore.commit(writes);
    } catch (error) {
      this.indexed = undefined;
      // Tried again at the next flush; a use recorded meanwhile is later and wins.
      for (const sessionId of used) this.unflushed.add(sessionId);
      this.logger.warn({ msg: 'could not record console session use: tried again at the next flush', error: String(error) });
    }
  }
}
