import { Injectable } from '@nestjs/common';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';

/** A thread's metrics as prom-client's JSON, which AggregatorRegistry adds up. */
export type ThreadMetricValues = MetricObjectWithValues<MetricValue<string>>[];

/** The default metrics' names (collectDefaultMetrics with the prefix below): the process's and the thread's own runtime. */
const RUNTIME_METRICS = /^warden_(process|nodejs)_/;

/** The process's Prometheus registry and the metrics other parts record into. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'warden_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'warden_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly appendDuration = new Histogram({
    name: 'warden_eventstore_append_duration_seconds',
    help: 'Event-store append latency (includes group-commit wait)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly appendedEvents = new Counter({
    name: 'warden_eventstore_appended_events_total',
    help: 'Events appended to the log by this process',
    registers: [this.registry],
  });
  readonly appendConflicts = new Counter({
    name: 'warden_eventstore_append_conflicts_total',
    help: 'Appends refused for a wrong expected revision',
    registers: [this.registry],
  });
  readonly subscriptionLag = new Gauge({
    name: 'warden_projection_lag_positions',
    help: 'How far each projection is behind the head of the log, in log positions',
    labelNames: ['projection'] as const,
    // Several threads of one process may run or catch up the same projection: the furthest figure.
    aggregator: 'max',
    registers: [this.registry],
  });
  readonly backgroundWaits = new Counter({
    name: 'warden_projection_background_waits_total',
    help: 'Batches of a background projection (the audit trail) held back while another projection was far behind the log',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly projectionPosition = new Gauge({
    name: 'warden_projection_position',
    help: 'Last log position applied by each projection',
    labelNames: ['projection'] as const,
    aggregator: 'max',
    registers: [this.registry],
  });

  /**
   * Other threads of this process whose metrics `/metrics` adds to these (the background thread's):
   * each read answers one set of figures per run of the thread (see BackgroundThread).
   */
  private readonly threads = new Set<() => Promise<ThreadMetricValues[]>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'warden_' });
  }

  /** Adds another thread's metrics (threadMetrics there) to what `/metrics` shows; returns the undo. */
  addThread(read: () => Promise<ThreadMetricValues[]>): () => void {
    this.threads.add(read);
    return () => this.threads.delete(read);
  }

  /**
   * This thread's metrics without the runtime's (the process's CPU and memory, this isolate's heap
   * and event loop), which the main thread reports: what another thread's addThread adds up.
   */
  async threadMetrics(): Promise<ThreadMetricValues> {
    const values = (await this.registry.getMetricsAsJSON()) as ThreadMetricValues;
    return values.filter((m) => !RUNTIME_METRICS.test(m.name));
  }

  /**
   * The Prometheus text of this process: this thread's registry, and each added thread's metrics
   * summed into it (counters and histograms add up; positions and lags take the largest). A
   * thread that does not answer is left out of this scrape.
   */
  async exposition(): Promise<string> {
    if (this.threads.size === 0) return this.registry.metrics();
    const others = (await Promise.all([...this.threads].map((read) => read().catch(() => [])))).flat();
    // The aggregation leaves out what its aggregator says to omit (the process's start time):
    // this thread's figures are shown as they are.
    const own = ((await this.registry.getMetricsAsJSON()) as ThreadMetricValues).map((m) =>
      m.aggregator === 'omit' ? { ...m, aggregator: 'first' as const } : m,
    );
    return AggregatorRegistry.aggregate([own, ...others]).metrics();
  }
}
