import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { randomIds, systemClock } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from './config/warden-config.js';
import { ErrorFilter } from './http/error.filter.js';
import { RouteTable } from './http/route-table.js';
import { HealthHttpController } from './observability/health.http.controller.js';
import { Metrics } from './observability/metrics.js';
import { CLOCK, ID_GENERATOR } from './tokens.js';
import { GUARDED_HTTP_CLIENT, GuardedHttpClient } from './outbound/guarded-http-client.js';

/** Closes the outbound client's connections at shutdown; Nest runs global modules' hooks last, after the callback dispatcher has drained. */
class OutboundLifecycle implements OnApplicationShutdown {
  constructor(@Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}

/**
 * Infrastructure every module uses: configuration, clock and ids, metrics, the guarded outbound
 * client, the section-7 error filter and the health routes. Global like the storage module, as
 * ambient infrastructure; domain modules are never global.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: WardenConfig): DynamicModule {
    const providers = [
      { provide: WARDEN_CONFIG, useValue: config },
      {
        provide: GUARDED_HTTP_CLIENT,
        useFactory: () => new GuardedHttpClient({ allowlist: config.outboundAllowlist }),
      },
      { provide: CLOCK, useValue: systemClock },
      { provide: ID_GENERATOR, useValue: randomIds },
      Metrics,
      RouteTable,
      OutboundLifecycle,
      { provide: APP_FILTER, useClass: ErrorFilter },
    ];
    return {
      module: PlatformModule,
      global: true,
      controllers: [HealthHttpController],
      providers,
      exports: providers.filter((p) => p !== OutboundLifecycle && !(typeof p === 'object' && 'provide' in p && p.provide === APP_FILTER)),
    };
  }
}
