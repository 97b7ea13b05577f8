import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import type { EventStore, Subscription } from '#warden/eventstore';
import type { HashBankEvent } from '#warden/catalog/contracts';
import { recordedAs } from '#warden/kernel';
import { EVENT_STORE } from '#warden/storage';
import { MAX_INDEXED_DISTANCE, PdqIndex } from '../domain/hash-index.js';
import { pdqFromHex } from '../domain/pdq.js';
import { SearchTurns } from './search-turns.js';

interface BankHashes {
  /** 64-hex hashes (PDQ and SHA-256); SHA-256 matches are distance 0. */
  readonly wide: PdqIndex;
  /** 32-hex hashes (MD5). */
  readonly narrow: Set<string>;
  readonly refs: Map<string, number>;
  readonly hexes: string[];
}

type BankEvent = { bankId: string; hashes: string[] };

export interface PdqBankMatch {
  readonly bankId: string;
  readonly hash: string;
  readonly distance: number;
}

export interface BankIndexOptions {
  /** How long `ready()` waits for the index to load before it fails the caller. */
  readonly readyTimeoutMs: number;
  /** Wait before re-subscribing after the subscription dropped. */
  readonly retryDelayMs: number;
}

export const BANK_INDEX_OPTIONS = Symbol('BankIndexOptions');
const DEFAULT_OPTIONS: BankIndexOptions = { readyTimeoutMs: 30_000, retryDelayMs: 1_000 };
/** Banks of fewer hashes scan in well under a millisecond: their searches take no turn. */
export const SEARCH_TURN_HASHES = 65_536;

/**
 * Every organization's bank hashes, in memory, for exact matching: built from the bank streams
 * at first use and kept current by a live subscription, so hashes added by `apply` or
 * `bank import` take effect within moments, without a restart. A dropped subscription is
 * re-established from the last event applied; until it has caught up again, `ready()` waits
 * (bounded, so an evaluation fails with a clear error instead of hanging).
 */
@Injectable()
export class BankIndex implements OnApplicationShutdown {
  private readonly logger = new Logger('hash-banks');
  private readonly banks = new Map<string, BankHashes>();
  private readonly options: BankIndexOptions;
  private subscription: Subscription | undefined;
  private started = false;
  private closed = false;
  /** Caught up with the log through the current subscription. */
  private loaded = false;
  private position = 0;
  private failures = 0;
  private lastError: unknown;
  private retry: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];
  private readonly turns = new SearchTurns();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Optional() @Inject(BANK_INDEX_OPTIONS) options?: Partial<BankIndexOptions>,
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  /**
   * Resolves once the index holds every hash recorded before the call (first call starts it);
   * rejects after `readyTimeoutMs` when the log cannot be followed.
   */
  ready(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    if (!this.started) {
      this.started = true;
      this.subscribe();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const cause = this.lastError === undefined ? '' : `; the event store subscription failed ${this.failures} time(s), last: ${String(this.lastError)}`;
        reject(new Error(`Hash banks not loaded within ${this.options.readyTimeoutMs} ms${cause}`));
      }, this.options.readyTimeoutMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  private subscribe(): void {
    this.subscription = this.events.subscribeToAll({
      after: this.position,
      eventTypes: ['HashBankHashesAdded', 'HashBankHashesRemoved'],
      personalData: false,
      onEvents: async (events) => {
        for (const e of events) {
          if (e.position <= this.position) continue;
          const bank = recordedAs<HashBankEvent>(e, 'HashBankHashesAdded', 'HashBankHashesRemoved');
          if (bank?.type === 'HashBankHashesAdded') this.add(e.metadata.orgId, bank.data);
          else if (bank?.type === 'HashBankHashesRemoved') this.remove(e.metadata.orgId, bank.data);
          this.position = e.position;
        }
      },
      onCaughtUp: () => {
        this.loaded = true;
        this.logger.log({ msg: 'hash banks loaded', banks: this.banks.size });
        for (const w of this.waiters.splice(0)) w();
      },
      onError: (error) => this.resubscribeAfter(error),
    });
  }

  private resubscribeAfter(error: unknown): void {
    if (this.closed) return;
    this.loaded = false;
    this.failures++;
    this.lastError = error;
    this.logger.error({ msg: 'hash bank subscription failed; re-subscribing', error: String(error) });
    const dropped = this.subscription;
    this.subscription = undefined;
    void (dropped?.stop() ?? Promise.resolve())
      .catch(() => undefined)
      .finally(() => {
        if (this.closed) return;
        this.retry = setTimeout(() => {
          if (!this.closed) this.subscribe();
        }, this.options.retryDelayMs);
        this.retry.unref();
      });
  }

  /**
   * As `nearestPdq`, in its organization's turn (SearchTurns) when the search may scan a large
   * bank linearly (a radius beyond the tables', SEARCH_TURN_HASHES hashes or more): what else waits
   * runs between two such searches.
   */
  async nearestPdqInTurn(orgId: string, bankIds: readonly string[], pdqHex: string, maxDistance: number): Promise<PdqBankMatch | undefined> {
    const hashes = bankIds.reduce((n, bankId) => n + (this.banks.get(key(orgId, bankId))?.wide.size ?? 0), 0);
    if (maxDistance <= MAX_INDEXED_DISTANCE || hashes < SEARCH_TURN_HASHES) return this.nearestPdq(orgId, bankIds, pdqHex, maxDistance);
    return this.turns.run(orgId, () => this.nearestPdq(orgId, bankIds, pdqHex, maxDistance));
  }

  /**
   * The banked PDQ hash nearest to `pdqHex` within `maxDistance` across `bankIds` (the first bank
   * listed wins a tie): exact, no approximation, and nothing collected on the way (see `PdqIndex.nearest`).
   */
  nearestPdq(orgId: string, bankIds: readonly string[], pdqHex: string, maxDistance: number): PdqBankMatch | undefined {
    let query: Uint8Array | undefined;
    let best: PdqBankMatch | undefined;
    for (const bankId of bankIds) {
      const bank = this.banks.get(key(orgId, bankId));
      if (!bank) continue;
      query ??= pdqFromHex(pdqHex);
      // A later bank must be strictly nearer to win, so its search bound is one below the best so far.
      const m = bank.wide.nearest(query, best === undefined ? maxDistance : best.distance - 1);
      if (m) best = { bankId, hash: bank.hexes[m.ref]!, distance: m.distance };
    }
    return best;
  }

  /** Banks holding exactly this MD5 or SHA-256. */
  exactMatches(orgId: string, bankIds: readonly string[], hex: string): string[] {
    return bankIds.filter((bankId) => {
      const bank = this.banks.get(key(orgId, bankId));
      if (!bank) return false;
      return hex.length === 32 ? bank.narrow.has(hex) : bank.wide.nearestHex(hex, 0) !== undefined;
    });
  }

  size(orgId: string, bankId: string): number {
    const bank = this.banks.get(key(orgId, bankId));
    return bank ? bank.refs.size : 0;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
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
    // One pass over the PDQ index for the whole event: a pass per hash made a 10,000-hash removal
    // from a 200,000-hash bank block the event loop for seconds, again at every start (the index replays the log).
    const wide = new Set<number>();
    for (const hex of data.hashes) {
      const ref = bank.refs.get(hex);
      if (ref === undefined) continue;
      bank.refs.delete(hex);
      if (hex.length === 32) bank.narrow.delete(hex);
      else wide.add(ref);
    }
    if (wide.size > 0) bank.wide.removeWhere((ref) => wide.has(ref));
  }
}

const key = (orgId: string, bankId: string) => `${orgId}\u0000${bankId}`;
