import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'warden_' });
  }
}
