import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Metrics, ThreadMetricValues } from '#warden/platform';

/** What the main thread asks the background thread. */
export type ToBackground = { readonly kind: 'metrics'; readonly id: number } | { readonly kind: 'stop' };

/** What the background thread tells the main thread. */
export type FromBackground =
  | { readonly kind: 'ready' }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'metrics'; readonly id: number; readonly values: ThreadMetricValues };

/** The thread's entry: beside this module both in dist/apps/server/src and in the bundle's folder. */
export const BACKGROUND_THREAD_ENTRY = new URL('./background-thread.js', import.meta.url);
/**
 * How long a stopping thread may take to finish its batches in progress (every reactor's and the
 * read-model thread's) and close its stores before it is terminated. A batch ends within seconds;
 * terminated, the thread's work in progress is redelivered at the next start (never lost).
 */
export const BACKGROUND_STOP_TIMEOUT_MS = 30_000;
/** How long a scrape of `/metrics` waits for the thread's figures before leaving them out. */
export const METRICS_TIMEOUT_MS = 2_000;
/** After the thread ended unexpectedly, it is started again after these delays in turn (the last one repeating). */
export const RESTART_DELAYS_MS: readonly number[] = [1_000, 2_000, 5_000, 15_000, 30_000];
/** The metric types whose figures only grow: what the process keeps of a run that ended. */
const CUMULATIVE = new Set(['counter', 'histogram']);
/** A run of the thread at least this long ends the series of failures: the next restart waits the first delay again. */
export const STEADY_RUN_MS = 60_000;

/** After this many runs in a row that ended before the thread was ready, its work runs on the main thread instead. */
export const FALL_BACK_AFTER_FAILED_STARTS = 3;

export interface BackgroundThreadOptions {
  /** The thread's entry (BACKGROUND_THREAD_ENTRY; tests pass stand-ins). */
  readonly entry?: URL;
  /** RESTART_DELAYS_MS unless a test needs them shorter. */
  readonly restartDelaysMs?: readonly number[];
  /**
   * Runs the thread's work on the main thread (startBackground there), once the thread has failed to
   * start FALL_BACK_AFTER_FAILED_STARTS times in a row: a thread that can never start (a build
   * without its entry, a store it cannot open) must not leave the process evaluating nothing.
   */
  readonly fallBack?: () => void;
}

/**
 * The main thread's side of the background thread (docs/architecture.md, "The background thread"):
 * an `all` process answers requests on its event loop and runs its projections and reactors on a
 * worker thread, a worker role of its own (background-thread.ts), so that a burst of evaluations
 * and callbacks takes a second core rather than the requests' turns. The thread's metrics are
 * added to the process's `/metrics`. Should the thread end unexpectedly, it is started again:
 * its work resumes from the stored checkpoints, as a restarted worker's does.
 */
export class BackgroundThread {
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, (values: ThreadMetricValues) => void>();
  /** The running thread's figures as it last answered: served when it does not answer in time. */
  private lastFigures: ThreadMetricValues = [];
  /**
   * The counters and histograms of the runs that ended, as last read: a restarted thread counts
   * from 0 again, and the process's totals must not go down (Prometheus would take it for a reset).
   */
  private endedRuns: ThreadMetricValues[] = [];
  private nextId = 1;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly removeMetrics: () => void;
  /** Runs in a row that ended before the thread said it was ready. */
  private failedStarts = 0;
  /** When the running thread said it was ready (the back-off starts again only after a run that lasted). */
  private readyAt: number | undefined;

  private constructor(
    private readonly logger: Logger,
    metrics: Metrics,
    private readonly entry: URL,
    private readonly restartDelaysMs: readonly number[],
    private readonly fallBack: (() => void) | undefined,
  ) {
    this.removeMetrics = metrics.addThread(() => this.readMetrics());
  }

  /** Starts the thread; its projections and reactors start once it has booted. */
  static start(logger: Logger, metrics: Metrics, options: BackgroundThreadOptions = {}): BackgroundThread {
    const thread = new BackgroundThread(
      logger,
      metrics,
      options.entry ?? BACKGROUND_THREAD_ENTRY,
      options.restartDelaysMs ?? RESTART_DELAYS_MS,
      options.fallBack,
    );
    thread.spawn();
    return thread;
  }

  /** Whether a thread runs now (false between an unexpected end and its restart, and once stopped). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Stops the thread's work after its batches in progress and ends the thread; no restart after. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.restartTimer);
      this.removeMetrics();
      const worker = this.worker;
      if (!worker) return;
      worker.postMessage({ kind: 'stop' } satisfies ToBackground);
      const timeout = setTimeout(() => {
        this.logger.warn({ msg: 'background thread did not stop in time: terminated', timeoutMs: BACKGROUND_STOP_TIMEOUT_MS });
        void worker.terminate();
      }, BACKGROUND_STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timeout);
    })();
    return this.stopping;
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(this.entry);
    } catch (error) {
      // No thread could be made (a build without its entry): as if it had ended at once.
      this.failedStarts++;
      this.ended(`not started: ${String(error)}`);
      return;
    }
    this.worker = worker;
    // The process ends by its own shutdown, which stops the thread first; the thread never holds it.
    worker.unref();
    worker.on('message', (message: FromBackground) => this.receive(worker, message));
    // An uncaught error ends the thread: 'exit' follows, which restarts it.
    worker.on('error', (error) => this.logger.error({ msg: 'background thread failed', error: String(error) }));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        for (const answer of this.pending.values()) answer(this.lastFigures);
        this.pending.clear();
        const cumulative = this.lastFigures.filter((m) => CUMULATIVE.has(String(m.type)));
        if (cumulative.length > 0) this.endedRuns.push(cumulative);
        this.lastFigures = [];
        if (this.readyAt !== undefined && Date.now() - this.readyAt >= STEADY_RUN_MS) this.failures = 0;
        this.failedStarts = this.readyAt === undefined ? this.failedStarts + 1 : 0;
        this.readyAt = undefined;
        if (this.stopping === undefined) this.ended(`exited (${code})`);
        resolve();
      }),
    );
  }

  private receive(worker: Worker, message: FromBackground): void {
    switch (message.kind) {
      case 'ready':
        this.readyAt = Date.now();
        this.logger.info({ msg: 'background thread started' });
        return;
      case 'failed':
        this.logger.error({ msg: 'background thread could not start', error: message.error });
        // Whatever of it still runs ends here; its exit restarts it.
        void worker.terminate();
        return;
      case 'metrics':
        if (worker === this.worker) this.lastFigures = message.values;
        this.pending.get(message.id)?.(message.values);
        this.pending.delete(message.id);
    }
  }

  /** Ended without being told to: started again after a delay that grows with the failures in a row. */
  private ended(reason: string): void {
    if (this.fallBack && this.failedStarts >= FALL_BACK_AFTER_FAILED_STARTS) {
      this.logger.error({ msg: 'background thread could not start: its work runs on the main thread', reason, tries: this.failedStarts });
      this.fallBack();
      return;
    }
    const delayMs = this.restartDelaysMs[Math.min(this.failures, this.restartDelaysMs.length - 1)] ?? 0;
    this.failures++;
    this.logger.error({ msg: 'background thread ended: started again after a delay', reason, delayMs });
    this.restartTimer = setTimeout(() => {
      if (this.stopping === undefined) this.spawn();
    }, delayMs);
    this.restartTimer.unref();
  }

  /**
   * The thread's metrics for a scrape of `/metrics`: the running thread's (as it last answered,
   * when it does not answer in time or is between runs), and the counters of the runs that ended.
   */
  private async readMetrics(): Promise<ThreadMetricValues[]> {
    const asked = this.worker;
    const current = await this.askFigures();
    // The run that answered ended while the answer came back: its figures are among the ended
    // runs' now, and counting them again would make the totals jump, then fall at the next scrape.
    const running = this.worker === asked ? [current] : [];
    // Folded into one set, so that a thread restarted again and again keeps one set of figures here.
    if (this.endedRuns.length > 1) this.endedRuns = [(await AggregatorRegistry.aggregate(this.endedRuns).getMetricsAsJSON()) as ThreadMetricValues];
    return [...this.endedRuns, ...running];
  }

  private askFigures(): Promise<ThreadMetricValues> {
    const worker = this.worker;
    if (!worker) return Promise.resolve(this.lastFigures);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(this.lastFigures);
      }, METRICS_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, (values) => {
        clearTimeout(timer);
        resolve(values);
      });
      worker.postMessage({ kind: 'metrics', id } satisfies ToBackground);
    });
  }
}
