import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { randomIds, systemClock } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from './config/warden-config.js';
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
 * client. Global like the storage module, as ambient infrastructure; domain modules are never
 * global. The HTTP side (error filter, health routes) is PlatformHttpModule, in the http entry.
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
      OutboundLifecycle,
    ];
    return {
      module: PlatformModule,
      global: true,
      providers,
      exports: providers.filter((p) => p !== OutboundLifecycle),
    };
  }
}
