import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { PersonalDataPolicy } from '#warden/eventstore';
import { UpcasterRegistry } from '#warden/kernel';
import { MEDIA_HASHER, RULE_SIGNALS, type RuleSignals } from '#warden/rules';
import { HASHING_PERSONAL_DATA } from './contracts.js';
import { BankIndex } from './banks/bank-index.js';
import { ImportBankHashesHandler } from './commands/import-bank-hashes/import-bank-hashes.handler.js';
import { RemoveBankHashesHandler } from './commands/remove-bank-hashes/remove-bank-hashes.handler.js';
import { MEDIA_UPCASTERS } from './domain/media.upcasters.js';
import { GuardedMediaHasher } from './media/guarded-media-hasher.js';
import { imageHashDistanceSignal, imageHashMatchSignal } from './signals/image-hash.signals.js';

/**
 * Media fetch and hashing, hash banks, and the image-hash signals: an extension of the rules
 * engine (RULE_SIGNALS, MEDIA_HASHER), composed with it in the application module.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    BankIndex,
    GuardedMediaHasher,
    { provide: MEDIA_HASHER, useExisting: GuardedMediaHasher },
    {
      provide: RULE_SIGNALS,
      useFactory: (index: BankIndex): RuleSignals => [imageHashMatchSignal(index), imageHashDistanceSignal(index)],
      inject: [BankIndex],
    },
    ImportBankHashesHandler,
    RemoveBankHashesHandler,
  ],
  exports: [MEDIA_HASHER, RULE_SIGNALS],
})
export class HashingModule implements OnModuleInit {
  constructor(
    @Inject(UpcasterRegistry) private readonly upcasters: UpcasterRegistry,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
  ) {}

  onModuleInit(): void {
    this.upcasters.register(...MEDIA_UPCASTERS);
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(HASHING_PERSONAL_DATA);
  }
}
