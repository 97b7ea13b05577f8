import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogSnapshots, MEDIA_HASHER, SIGNAL_REGISTRY, type SignalRegistry } from '#warden/rules';
import { BankIndex } from './banks/bank-index.js';
import { ImportBankHashesHandler } from './commands/import-bank-hashes/import-bank-hashes.handler.js';
import { GuardedMediaHasher } from './media/guarded-media-hasher.js';
import { imageHashDistanceSignal, imageHashMatchSignal } from './signals/image-hash.signals.js';

/** Media fetch and hashing, hash banks, and the image-hash signals of the rules engine. */
@Module({})
export class HashingModule implements OnModuleInit {
  constructor(
    @Inject(SIGNAL_REGISTRY) private readonly registry: SignalRegistry,
    private readonly index: BankIndex,
    private readonly banks: CatalogSnapshots,
  ) {}

  static register(): DynamicModule {
    return {
      module: HashingModule,
      // Global: the rules engine finds the media hasher by token without importing this module.
      global: true,
      providers: [
        BankIndex,
        GuardedMediaHasher,
        { provide: MEDIA_HASHER, useExisting: GuardedMediaHasher },
        ImportBankHashesHandler,
      ],
      exports: [MEDIA_HASHER],
    };
  }

  onModuleInit(): void {
    this.registry.register(imageHashMatchSignal(this.index, this.banks));
    this.registry.register(imageHashDistanceSignal(this.index, this.banks));
  }
}
