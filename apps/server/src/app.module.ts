import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { CatalogModule } from '#warden/catalog';
import { IdentityModule } from '#warden/identity';
import { IngestionModule } from '#warden/ingestion';
import { RulesModule } from '#warden/rules';
import { HashingModule } from '#warden/hashing';
import { CallbacksModule } from '#warden/callbacks';
import { SsoModule } from '#warden/sso';
import { ReviewModule } from '#warden/review';
import { EnforcementModule } from '#warden/enforcement';
import { AppealsModule } from '#warden/appeals';
import { AuditModule } from '#warden/audit';
import { ErasureModule } from '#warden/erasure';
import { TransparencyModule } from '#warden/transparency';
import { InsightsModule } from '#warden/insights';
import { InboundModule } from '#warden/inbound';
import { PartialItemsModule } from '#warden/partial-items';
import { ApiKeyGuard, ConsoleGuard, PlatformModule, type WardenConfig } from '#warden/platform';
import { type Storage, StorageModule } from '#warden/storage';

/** What a server process runs, by its role (rolesOf). */
export interface AppOptions {
  /** HTTP controllers of the customer API (api and all roles). */
  readonly http: boolean;
  /** Projections and reactors run in this process (worker and all roles). */
  readonly background: boolean;
}

export interface CompositionOptions {
  /** Projections and reactors run in this process; callbacks are sent from it. */
  readonly background: boolean;
  /**
   * The HTTP side (HttpSurfaceModule.forRoles in http-surface.module.ts), composed by server
   * processes only: this file imports no HTTP entry, so the CLI never loads Fastify or Swagger.
   */
  readonly http?: DynamicModule;
}

/**
 * The composition root: the one place that imports every module. No domain module is global:
 * each imports what it uses (the catalog, mostly), and gets here the modules that provide the
 * ports it uses (the rules engine its extensions).
 */
@Module({})
export class AppModule {
  static forRoot(config: WardenConfig, storage: Storage, options: CompositionOptions): DynamicModule {
    // The modules call one another through ports composed here (docs/architecture.md, "Ports"):
    // the module that needs a port is given the module that provides it, and imports it. One
    // rules engine, given by reference to the review module, which routes through it.
    // Callbacks are handed every published action by enforcement, with the user's strike count.
    const callbacks = CallbacksModule.register({ deliver: options.background, actionsThroughPort: true });
    const enforcement = EnforcementModule.register({ deliveries: callbacks });
    const rules = RulesModule.register({ extensions: [HashingModule, PartialItemsModule, enforcement] });
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(config),
        StorageModule.forRoot(storage),
        CqrsModule.forRoot(),
        IdentityModule.register({ passwordLogin: SsoModule }),
        CatalogModule,
        IngestionModule,
        rules,
        callbacks,
        SsoModule,
        ReviewModule.register({ routing: rules, strikes: enforcement, appeals: AppealsModule }),
        enforcement,
        AppealsModule,
        ErasureModule,
        AuditModule,
        TransparencyModule.register({ submit: options.background }),
        InsightsModule,
        // The inbound topic (docs/inbound-topic.md): off unless a broker is configured; consumed by workers.
        ...(config.inboundTopic !== undefined && options.background ? [InboundModule.register(config.inboundTopic)] : []),
        ...(options.http ? [options.http] : []),
      ],
      providers: [
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: ConsoleGuard },
      ],
    };
  }
}

export function rolesOf(config: WardenConfig): AppOptions {
  // Read-only (a replayed data directory): no projections and no reactors, which would act again
  // on the past (send its callbacks a second time).
  if (config.readOnly) return { http: true, background: false };
  return { http: config.role !== 'worker', background: config.role !== 'api' };
}
