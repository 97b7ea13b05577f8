import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Global,
  Inject,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { UpcasterRegistry } from '#warden/kernel';
import { KEYRING, Metrics, READINESS_CHECKS, type ReadinessCheck, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore } from './aggregate-store.js';
import { instrumentEventStore } from './instrumented-event-store.js';
import { ProjectionHost } from './projection-host.js';
import type { Storage } from './storage.js';
import { EVENT_STORE, READ_STORE, STORAGE, SUBJECT_KEY_STORE } from './storage.tokens.js';

export interface StorageOptions {
  /** The server runs projections (worker and all roles); the CLI catches up on demand only. */
  readonly runProjections: boolean;
}

const STORAGE_OPTIONS = Symbol('StorageOptions');

/**
 * Creates the projections' indexes in every role and runs the projections where the role says;
 * stops them, after their batch, before anything else shuts down.
 */
class ProjectionLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(STORAGE_OPTIONS) private readonly options: StorageOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projections.ensureIndexes();
    if (this.options.runProjections && this.config.role !== 'api') await this.projections.startAll();
  }

  /** The stores themselves are closed by whoever opened them, after the application. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.projections.stopAll();
  }
}

/**
 * The stores of the process (opened by the caller, DESIGN.md section 2) as Nest providers: the
 * event store (instrumented), the read store, the subject keys, the personal-data policy and the
 * upcasters modules register into, the aggregate store and the projection host.
 */
@Global()
@Module({})
export class StorageModule {
  static forRoot(storage: Storage, options: StorageOptions): DynamicModule {
    const providers = [
      { provide: STORAGE_OPTIONS, useValue: options },
      { provide: STORAGE, useValue: storage },
      {
        provide: EVENT_STORE,
        useFactory: (metrics: Metrics) => instrumentEventStore(storage.events, metrics),
        inject: [Metrics],
      },
      { provide: READ_STORE, useValue: storage.readStore },
      { provide: SUBJECT_KEY_STORE, useValue: storage.subjectKeys },
      { provide: KEYRING, useValue: storage.keyring },
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
      AggregateStore,
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
