import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { EventStore, Subscription } from '../../../eventstore/src/index.js';
import { EVENT_STORE } from '../../../platform/src/index.js';
import { PdqIndex } from '../domain/hash-index.js';

interface BankHashes {
  /** 64-hex hashes (PDQ and SHA-256); SHA-256 matches are distance 0. */
  readonly wide: PdqIndex;
  /** 32-hex hashes (MD5). */
  readonly narrow: Set<string>;
  readonly refs: Map<string, number>;
  readonly hexes: string[];
}

type BankEvent = { bankId: string; hashes: string[] };

/**
 * Every organization's bank hashes, in memory, for exact matching: built from the bank streams
 * at first use and kept current by a live subscription, so hashes added by `apply` or
 * `bank import` take effect within moments, without a restart.
 */
@Injectable()
export class BankIndex implements OnApplicationShutdown {
  private readonly logger = new Logger('hash-banks');
  private readonly banks = new Map<string, BankHashes>();
  private subscription: Subscription | undefined;
  private caughtUp: Promise<void> | undefined;

  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** Resolves once the index holds every hash recorded before the call (first call starts it). */
  ready(): Promise<void> {
    this.caughtUp ??= new Promise<void>((resolve) => {
      this.subscription = this.events.subscribeToAll({
        eventTypes: ['HashBankHashesAdded', 'HashBankHashesRemoved'],
        personalData: false,
        onEvents: async (events) => {
          for (const e of events) {
            if (e.type === 'HashBankHashesAdded') this.add(e.metadata.orgId, e.data as unknown as BankEvent);
            else if (e.type === 'HashBankHashesRemoved') this.remove(e.metadata.orgId, e.data as unknown as BankEvent);
          }
        },
        onCaughtUp: () => {
          this.logger.log({ msg: 'hash banks loaded', banks: this.banks.size });
          resolve();
        },
        onError: (error) => this.logger.error({ msg: 'hash bank subscription failed', error: String(error) }),
      });
    });
    return this.caughtUp;
  }

  /** Bank hashes within `maxDistance` of a PDQ hash: exact, no approximation. */
  pdqMatches(orgId: string, bankIds: readonly string[], pdqHex: string, maxDistance: number) {
    const out: Array<{ bankId: string; hash: string; distance: number }> = [];
    for (const bankId of bankIds) {
      const bank = this.banks.get(key(orgId, bankId));
      if (!bank) continue;
      for (const m of bank.wide.searchHex(pdqHex, maxDistance)) out.push({ bankId, hash: bank.hexes[m.ref]!, distance: m.distance });
    }
    return out.sort((a, b) => a.distance - b.distance);
  }

  /** Banks holding exactly this MD5 or SHA-256. */
  exactMatches(orgId: string, bankIds: readonly string[], hex: string): string[] {
    return bankIds.filter((bankId) => {
      const bank = this.banks.get(key(orgId, bankId));
      if (!bank) return false;
      return hex.length === 32 ? bank.narrow.has(hex) : bank.wide.searchHex(hex, 0).length > 0;
    });
  }

  size(orgId: string, bankId: string): number {
    const bank = this.banks.get(key(orgId, bankId));
    return bank ? bank.refs.size : 0;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  private bank(orgId: string, bankId: string): BankHashes {
    const k = key(orgId, bankId);
    let bank = this.banks.get(k);
    if (!bank) {
      bank = { wide: new PdqIndex(), narrow: new Set(), refs: new Map(), hexes: [] };
      this.banks.set(k, bank);
    }
    return bank;
  }

  private add(orgId: string, data: BankEvent): void {
    const bank = this.bank(orgId, data.bankId);
    for (const hex of data.hashes) {
      if (bank.refs.has(hex)) continue;
      const ref = bank.hexes.length;
      bank.hexes.push(hex);
      bank.refs.set(hex, ref);
      if (hex.length === 32) bank.narrow.add(hex);
      else bank.wide.addHex(hex, ref);
    }
  }

  private remove(orgId: string, data: BankEvent): void {
    const bank = this.banks.get(key(orgId, data.bankId));
    if (!bank) return;
    for (const hex of data.hashes) {
      const ref = bank.refs.get(hex);
      if (ref === undefined) continue;
      bank.refs.delete(hex);
      if (hex.length === 32) bank.narrow.delete(hex);
      else bank.wide.remove(ref);
    }
  }
}

const key = (orgId: string, bankId: string) => `${orgId}\u0000${bankId}`;
