import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import type { Metrics } from '#warden/platform';
import { DelegateGoneError, type ProjectionDelegate, type ProjectionHost } from '#warden/storage';

/** What the main thread asks the read-model thread. */
export type ToThread =
  | { readonly kind: 'start' }
  | { readonly kind: 'catchUp'; readonly id: number; readonly name: string }
  | { readonly kind: 'catchUpTo'; readonly id: number; readonly name: string; readonly position: number; readonly waitMs: number }
  | { readonly kind: 'stop' };

/** What the read-model thread tells the main thread. */
export type FromThread =
  | { readonly kind: 'ready' }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'done'; readonly id: number; readonly error?: string }
  | { readonly kind: 'progress'; readonly positions: ReadonlyArray<readonly [string, number]> }
  /** The thread's running totals of held batches per projection (ProjectionHost.delegatedBackgroundWaits). */
  | { readonly kind: 'waits'; readonly totals: ReadonlyArray<readonly [string, number]> };

const HEAP_USED = 'warden_read_model_thread_heap_used_bytes';
/** The thread whose heap a process's metrics report: gauges are registered once per registry. */
const threadOf = new WeakMap<Metrics, ReadModelThread>();

export interface ThreadOptions {
  /** The thread's entry (THREAD_ENTRY; tests pass stand-ins). */
  readonly entry?: URL;
  /** CATCH_UP_TIMEOUT_MS unless a test needs it shorter. */
  readonly catchUpTimeoutMs?: number;
  /** The process's metrics: the thread's heap is added to them. */
  readonly metrics?: Metrics;
}

/** How long a stopping thread may take to finish its batches and close its stores before it is terminated. */
export const STOP_TIMEOUT_MS = 30_000;
/**
 * How long a catch-up passed to the thread may take before the main thread catches up by itself
 * (a thread far behind, or wedged): the caller never waits forever, and two runners of one
 * projection stay correct (their checkpoints move by compare-and-set).
 */
export const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * `auto` on the embedded log: the thread starts once the log has grown by this many events since
 * the process started (some 1,000 items), looked at every AUTO_CHECK_MS. A thread costs a start
 * about 0.6 s of CPU and its heap some 50 MiB (measured, docs/architecture.md): a server that
 * writes little never needs it, while a burst passes this within seconds.
 */
export const AUTO_START_EVENTS = 5_000;
/** The thread's entry: beside this module both in dist/apps/server/src and in the bundle's folder. */
export const THREAD_ENTRY = new URL('./read-model-thread.js', import.meta.url);
export const AUTO_CHECK_MS = 1_000;

/**
 * The main thread's side of the read-model thread (docs/architecture.md, "The read-model thread"):
 * runs the projections marked `ownThread` on a worker thread, so that their writes (the audit
 * trail, deliveries, transparency statements: most of an item's read-model writes) take a second
 * core instead of the event loop that serves requests and runs the reactors. The host passes
 * catch-ups here; if the thread ends unexpectedly, the host runs the projections itself again.
 */
export class ReadModelThread implements ProjectionDelegate {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private gone: string | undefined;
  private stopping: Promise<void> | undefined;
  /** Resolves once the thread has exited (stopped, ended on its own, or terminated). */
  readonly exited: Promise<void>;

  private constructor(
    private readonly host: ProjectionHost,
    private readonly names: readonly string[],
    private readonly logger: Logger,
    entry: URL,
    private readonly catchUpTimeoutMs: number,
  ) {
    this.worker = new Worker(entry, { workerData: { names: [...names] } });
    // The process ends by its own shutdown, which stops the thread first; the thread never holds it.
    this.worker.unref();
    this.worker.on('message', (message: FromThread) => this.receive(message));
    this.worker.on('error', (error) => this.end(`failed: ${String(error)}`));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        this.end(`exited (${code})`);
        resolve();
      }),
    );
  }

  /**
   * Starts the thread for the host's `ownThread` projections and hands them to it: the thread boots
   * while those running here finish their batch, and starts them once they have. Undefined when
   * there are none. With `metrics`, the thread's heap is in them (`warden_read_model_thread_heap_*`).
   */
  static async start(host: ProjectionHost, logger: Logger, options: ThreadOptions = {}): Promise<ReadModelThread | undefined> {
    const names = host.ownThreadProjections();
    if (names.length === 0) return undefined;
    let thread: ReadModelThread;
    try {
      thread = new ReadModelThread(host, names, logger, options.entry ?? THREAD_ENTRY, options.catchUpTimeoutMs ?? CATCH_UP_TIMEOUT_MS);
    } catch (error) {
      // No thread could be made (a build without its entry): the projections go on here.
      logger.error({ msg: 'read-model thread not started: its projections run on the main thread', error: String(error) });
      return undefined;
    }
    if (options.metrics) thread.reportHeap(options.metrics);
    if (!(await host.delegate(names, thread))) {
      // The process is shutting down meanwhile.
      thread.gone = 'stopped';
      await thread.worker.terminate();
      return undefined;
    }
    // Not if it ended meanwhile (the host takes the projections back), nor once the host stops (its stop is on its way).
    if (thread.gone === undefined && !host.stopping) thread.worker.postMessage({ kind: 'start' } satisfies ToThread);
    return thread;
  }

  /**
   * `auto` on the embedded log: starts the thread once the log's head is AUTO_START_EVENTS past
   * `since` (where it was when the process started). It stops looking when the host stops (a
   * shutdown). KurrentDB's positions do not count events: there, `auto` is `on` (server.ts).
   */
  static startWhenBusy(host: ProjectionHost, log: { headPosition(): Promise<number> }, since: number, logger: Logger, options: ThreadOptions = {}): void {
    let looking = false;
    const timer = setInterval(() => {
      if (host.stopping) clearInterval(timer);
      if (looking || host.stopping) return;
      looking = true;
      log
        .headPosition()
        .then((head) => {
          if (head - since < AUTO_START_EVENTS) return;
          clearInterval(timer);
          return ReadModelThread.start(host, logger, options).then(() => undefined);
        })
        .catch((error: unknown) => logger.warn({ msg: 'read-model thread: looking at the log failed', error: String(error) }))
        .finally(() => (looking = false));
    }, AUTO_CHECK_MS);
    timer.unref();
  }

  /**
   * The thread's heap, read when `/metrics` is scraped: its own V8 isolate, which the process's
   * `warden_nodejs_heap_*` figures (the main thread's) leave out. 0 while no thread runs.
   */
  private reportHeap(metrics: Metrics): void {
    threadOf.set(metrics, this);
    if (metrics.registry.getSingleMetric(HEAP_USED) !== undefined) return;
    const heap = (figure: 'used_heap_size' | 'total_heap_size', name: string, help: string) =>
      new Gauge({
        name,
        help,
        registers: [metrics.registry],
        async collect() {
          const thread = threadOf.get(metrics);
          const statistics = thread?.gone === undefined ? await thread?.worker.getHeapStatistics().catch(() => undefined) : undefined;
          this.set(statistics?.[figure] ?? 0);
        },
      });
    heap('used_heap_size', HEAP_USED, "The read-model thread's V8 heap in use (0: no thread)");
    heap('total_heap_size', 'warden_read_model_thread_heap_total_bytes', "The read-model thread's V8 heap, as allocated (0: no thread)");
  }

  catchUp(name: string): Promise<void> {
    return this.ask((id) => ({ kind: 'catchUp', id, name }));
  }

  catchUpTo(name: string, position: number, waitMs: number): Promise<void> {
    return this.ask((id) => ({ kind: 'catchUpTo', id, name, position, waitMs }));
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.gone !== undefined) return;
      this.gone = 'stopped';
      this.worker.postMessage({ kind: 'stop' } satisfies ToThread);
      const timeout = setTimeout(() => {
        this.logger.warn({ msg: 'read-model thread did not stop in time: terminated', timeoutMs: STOP_TIMEOUT_MS });
        void this.worker.terminate();
      }, STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timeout);
    })();
    return this.stopping;
  }

  private ask(message: (id: number) => ToThread): Promise<void> {
    if (this.gone !== undefined) return Promise.reject(new DelegateGoneError(this.gone));
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new DelegateGoneError(`no answer in ${this.catchUpTimeoutMs} ms`));
      }, this.catchUpTimeoutMs);
      timer.unref();
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        outcome();
      };
      this.pending.set(id, { resolve: () => settle(resolve), reject: (error) => settle(() => reject(error)) });
      this.worker.postMessage(message(id));
    });
  }

  private receive(message: FromThread): void {
    switch (message.kind) {
      case 'ready':
        this.logger.info({ msg: 'read-model thread started', projections: this.names.length });
        return;
      case 'failed':
        this.end(`could not start: ${message.error}`);
        return;
      case 'progress':
        for (const [name, position] of message.positions) this.host.delegatedProgress(name, position);
        return;
      case 'waits':
        for (const [name, total] of message.totals) this.host.delegatedBackgroundWaits(name, total);
        return;
      case 'done': {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error === undefined) waiter?.resolve();
        else waiter?.reject(new Error(message.error));
      }
    }
  }

  /** The thread has gone: whoever waits for it catches up on the main thread, which runs its projections from now on. */
  private end(reason: string): void {
    const expected = this.gone === 'stopped';
    this.gone ??= reason;
    for (const waiter of this.pending.values()) waiter.reject(new DelegateGoneError(reason));
    this.pending.clear();
    if (expected) return;
    // Whatever of it still runs (a failure at start leaves its stores open) ends here: its projections run on the main thread now.
    void this.worker.terminate();
    void this.host.delegateLost(reason);
  }
}
