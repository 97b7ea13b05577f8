import { type BeforeApplicationShutdown, type DynamicModule, Global, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { type EventStore, PersonalDataPolicy } from '#warden/eventstore';
import { type Clock, type IdGenerator, UpcasterRegistry } from '#warden/kernel';
import { CLOCK, ID_GENERATOR, IDEMPOTENCY_STORE, Metrics, READINESS_CHECKS, type ReadinessCheck, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { KEYRING } from './secrets/keyring.js';
import { AggregateStore } from './aggregate-store.js';
import { instrumentEventStore } from './instrumented-event-store.js';
import { ProjectionHost } from './projection-host.js';
import type { Storage } from './storage.js';
import { EVENT_STORE, READ_STORE, STORAGE, SUBJECT_KEY_STORE } from './storage.tokens.js';

/**
 * Creates the projections' indexes in every role (the api role queries them too) and stops the
 * projections, after their batch, before anything else shuts down. Starting them is the server's
 * call, once the application is initialised (ProjectionHost.startAll): a reactor may use the
 * command and query buses, whose handlers are registered during bootstrap.
 */
class ProjectionLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(ProjectionHost) private readonly projections: ProjectionHost) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projections.ensureIndexes();
  }

  /** The stores themselves are closed by whoever opened them, after the application. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.projections.stopAll();
  }
}

/**
 * The stores of the process (opened by the caller, docs/operations.md, "Profiles") as Nest providers: the
 * event store (instrumented), the read store, the subject keys, the personal-data policy and the
 * upcasters modules register into, the aggregate store and the projection host.
 */
@Global()
@Module({})
export class StorageModule {
  static forRoot(storage: Storage): DynamicModule {
    const providers = [
      { provide: STORAGE, useValue: storage },
      {
        provide: EVENT_STORE,
        useFactory: (metrics: Metrics) => instrumentEventStore(storage.events, metrics),
        inject: [Metrics],
      },
      { provide: READ_STORE, useValue: storage.readStore },
      { provide: SUBJECT_KEY_STORE, useValue: storage.subjectKeys },
      { provide: KEYRING, useValue: storage.keyring },
      { provide: IDEMPOTENCY_STORE, useValue: storage.idempotency },
      { provide: PersonalDataPolicy, useValue: storage.personalData },
      { provide: UpcasterRegistry, useValue: storage.upcasters },
      {
        provide: READINESS_CHECKS,
        useValue: [
          { name: 'event store', ping: () => storage.events.ping() },
          { name: 'read-model store', ping: () => storage.readStore.ping() },
        ] satisfies ReadinessCheck[],
      },
      ...(storage.mongoConnectionToken ? [{ provide: storage.mongoConnectionToken, useValue: storage.mongo }] : []),
      ProjectionHost,
      {
        provide: AggregateStore,
        useFactory: (events: EventStore, clock: Clock, ids: IdGenerator, config: Pick<WardenConfig, 'aggregateCacheBytes' | 'snapshotEvery'>) =>
          aggregateStore(storage, events, clock, ids, config),
        inject: [EVENT_STORE, CLOCK, ID_GENERATOR, WARDEN_CONFIG],
      },
      ProjectionLifecycle,
    ];
    return {
      module: StorageModule,
      global: true,
      providers,
      exports: providers.filter((p) => p !== ProjectionLifecycle),
    };
  }
}

/** The application's aggregate store: states cached within the configured budget, long streams snapshotted, personal data neither. */
function aggregateStore(
  storage: Storage,
  events: EventStore,
  clock: Clock,
  ids: IdGenerator,
  config: Pick<WardenConfig, 'aggregateCacheBytes' | 'snapshotEvery'>,
): AggregateStore {
  const logger = new Logger('aggregates');
  return new AggregateStore(events, clock, ids, {
    snapshots: storage.snapshots,
    cacheBytes: config.aggregateCacheBytes,
    snapshotEvery: config.snapshotEvery,
    personalEventType: (type) => storage.personalData.ruleFor(type) !== undefined,
    erasures: () => storage.subjectKeys.erasures(),
    onSnapshotError: (stream, error) => logger.warn({ msg: 'snapshot not written', stream, error: String(error) }),
  });
}
