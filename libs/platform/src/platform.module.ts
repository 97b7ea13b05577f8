import { type DynamicModule, Global, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { PersonalDataPolicy } from '#warden/eventstore';
import { randomIds, systemClock, UpcasterRegistry } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from './config/warden-config.js';
import { ErrorFilter } from './http/error.filter.js';
import { RouteTable } from './http/route-table.js';
import { HealthHttpController } from './observability/health.http.controller.js';
import { instrumentEventStore } from './observability/instrumented-event-store.js';
import { Metrics } from './observability/metrics.js';
import { AggregateStore } from './storage/aggregate-store.js';
import { ProjectionHost } from './storage/projection-host.js';
import type { Storage } from './storage/storage.js';
import { EVENT_STORE, READ_STORE, STORAGE, SUBJECT_KEY_STORE } from './storage/storage.tokens.js';
import { CLOCK, ID_GENERATOR } from './tokens.js';
import { KEYRING } from './secrets/keyring.js';
import { GUARDED_HTTP_CLIENT, GuardedHttpClient } from './outbound/guarded-http-client.js';

export interface PlatformOptions {
  /** The server runs projections (worker and all roles); the CLI catches up on demand only. */
  readonly runProjections: boolean;
}

const PLATFORM_OPTIONS = Symbol('PlatformOptions');

/** Starts the projections in the roles that run them and stops them, after their batch, on shutdown. */
class StorageLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    @Inject(PLATFORM_OPTIONS) private readonly options: PlatformOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projections.ensureIndexes();
    if (this.options.runProjections && this.config.role !== 'api') await this.projections.startAll();
  }

  /** The stores themselves are closed by whoever opened them, after the application. */
  async onApplicationShutdown(): Promise<void> {
    await this.projections.stopAll();
    await this.http.close();
  }
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: WardenConfig, storage: Storage, options: PlatformOptions): DynamicModule {
    const providers = [
      { provide: WARDEN_CONFIG, useValue: config },
      { provide: PLATFORM_OPTIONS, useValue: options },
      { provide: STORAGE, useValue: storage },
      {
        provide: EVENT_STORE,
        useFactory: (metrics: Metrics) => instrumentEventStore(storage.events, metrics),
        inject: [Metrics],
      },
      { provide: READ_STORE, useValue: storage.readStore },
      { provide: SUBJECT_KEY_STORE, useValue: storage.subjectKeys },
      { provide: KEYRING, useValue: storage.keyring },
      {
        provide: GUARDED_HTTP_CLIENT,
        useFactory: () => new GuardedHttpClient({ allowlist: config.outboundAllowlist }),
      },
      { provide: PersonalDataPolicy, useValue: storage.personalData },
      { provide: UpcasterRegistry, useValue: storage.upcasters },
      { provide: CLOCK, useValue: systemClock },
      { provide: ID_GENERATOR, useValue: randomIds },
      ...(storage.mongoConnectionToken ? [{ provide: storage.mongoConnectionToken, useValue: storage.mongo }] : []),
      Metrics,
      RouteTable,
      ProjectionHost,
      AggregateStore,
      StorageLifecycle,
      { provide: APP_FILTER, useClass: ErrorFilter },
    ];
    return {
      module: PlatformModule,
      global: true,
      controllers: [HealthHttpController],
      providers,
      exports: providers.filter((p) => p !== StorageLifecycle && !(typeof p === 'object' && 'provide' in p && p.provide === APP_FILTER)),
    };
  }
}
