import { type DynamicModule, Inject, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { CatalogModule } from '#warden/catalog';
import { UpcasterRegistry } from '#warden/kernel';
import { CALLBACKS_PERSONAL_DATA } from './contracts.js';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE, STORAGE, type Storage, KEYRING, type Keyring } from '#warden/storage';
import { RedeliverCallbackHandler } from './commands/redeliver-callback/redeliver-callback.handler.js';
import { RetireSigningKeyHandler } from './commands/retire-signing-key/retire-signing-key.handler.js';
import { RotateSigningKeyHandler } from './commands/rotate-signing-key/rotate-signing-key.handler.js';
import { SendAppealCallbackHandler } from './commands/send-appeal-callback/send-appeal-callback.handler.js';
import { CALLBACK_DELIVERY_OPTIONS, CallbackDispatcher, DEFAULT_DELIVERY_OPTIONS } from './delivery/callback-dispatcher.js';
import { ACTION_DELIVERIES } from './delivery/action-deliveries.port.js';
import { ActionDeliveryRecorder } from './delivery/action-delivery-recorder.js';
import { deliveryReactor } from './delivery/delivery-reactor.js';
import { forEachScheduledDelivery } from './delivery/scheduled-deliveries.js';
import { destinationUrlUpcasters } from './delivery/destination-url.upcasters.js';
import { DeliveryRequests } from './delivery/delivery-requests.js';
import { CALLBACK_DELIVERIES_PROJECTION, callbackDeliveriesProjection } from './projections/callback-deliveries.projection.js';
import { GetSigningKeysHandler } from './queries/get-signing-keys/get-signing-keys.handler.js';
import { SignWithOrganizationKeyHandler } from './queries/sign-with-organization-key/sign-with-organization-key.handler.js';
import { ListDeliveriesHandler } from './queries/list-deliveries/list-deliveries.handler.js';
import { GetDeliveriesHandler } from './queries/get-deliveries/get-deliveries.handler.js';
import { ListItemDeliveriesHandler } from './queries/list-item-deliveries/list-item-deliveries.handler.js';
import { ListSigningKeysHandler } from './queries/list-signing-keys/list-signing-keys.handler.js';
import { SigningKeys } from './signing/signing-keys.js';

export interface CallbacksOptions {
  /** This process sends callbacks (worker and all roles; never the CLI). */
  readonly deliver?: boolean;
  /**
   * Published actions reach this module through its ACTION_DELIVERIES port, from the module that
   * counts strikes (enforcement), each with the user's count after it. Unset, the delivery reactor
   * records them itself, with the count the publisher put in the event, if any
   * (docs/architecture.md, "Ports").
   */
  readonly actionsThroughPort?: boolean;
}

const CALLBACKS_OPTIONS = Symbol('CallbacksOptions');

/** Signed action and appeal-decision callbacks: delivery with retries, dead letters, signing keys; the routes are CallbacksHttpModule's. */
@Module({})
export class CallbacksModule implements OnModuleInit {
  private readonly logger = new Logger('callbacks');

  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(CALLBACKS_OPTIONS) private readonly options: CallbacksOptions,
    private readonly dispatcher: CallbackDispatcher,
    private readonly actions: ActionDeliveryRecorder,
    @Inject(UpcasterRegistry) private readonly upcasters: UpcasterRegistry,
    @Inject(KEYRING) private readonly keyring: Keyring,
  ) {}

  static register(options: CallbacksOptions): DynamicModule {
    return {
      module: CallbacksModule,
      imports: [CatalogModule],
      providers: [
        { provide: CALLBACKS_OPTIONS, useValue: options },
        { provide: CALLBACK_DELIVERY_OPTIONS, useValue: DEFAULT_DELIVERY_OPTIONS },
        SigningKeys,
        CallbackDispatcher,
        DeliveryRequests,
        ActionDeliveryRecorder,
        { provide: ACTION_DELIVERIES, useExisting: ActionDeliveryRecorder },
        RotateSigningKeyHandler,
        RetireSigningKeyHandler,
        RedeliverCallbackHandler,
        SendAppealCallbackHandler,
        GetSigningKeysHandler,
        ListSigningKeysHandler,
        ListDeliveriesHandler,
        ListItemDeliveriesHandler,
        GetDeliveriesHandler,
        SignWithOrganizationKeyHandler,
      ],
      exports: [ACTION_DELIVERIES],
    };
  }

  onModuleInit(): void {
    this.upcasters.register(...destinationUrlUpcasters(this.keyring));
    if (typeof this.storage.events.subscribeToGroup === 'function') this.dispatcher.followGroup();
    this.projections.register(callbackDeliveriesProjection);
    this.projections.register(
      deliveryReactor({
        dispatcher: this.dispatcher,
        ...(!this.options.actionsThroughPort && { actions: this.actions }),
        activate: () => this.startDelivering(),
        deactivate: () => this.dispatcher.pause(),
      }),
    );
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(CALLBACKS_PERSONAL_DATA);
  }

  /**
   * Delivering starts with the delivery reactor, wherever it runs: at start-up in a lone worker,
   * or when a standby worker takes its lease over from one that stopped.
   */
  private startDelivering(): void {
    if (!this.options.deliver) return;
    this.dispatcher.start();
    void this.restore().catch((error: unknown) => this.logger.error({ msg: 'reloading scheduled callback deliveries failed', error: String(error) }));
  }

  /** Retries scheduled before a restart live in the log; the read model lists them for the timers. */
  private async restore(): Promise<void> {
    await this.projections.catchUp(CALLBACK_DELIVERIES_PROJECTION);
    const count = await forEachScheduledDelivery(this.readStore, (d) =>
      this.dispatcher.schedule({ orgId: d.orgId, deliveryId: d.deliveryId }, d.nextAttemptAt, d.revision),
    );
    if (count > 0) this.logger.log({ msg: 'callback deliveries rescheduled', count });
  }
}
