import { type Decider, ownValue } from '#warden/kernel';
import type { HashType } from './catalog.model.js';
import { HASH_CHUNK, type HashBankEntity, type HashBankEvent, type HashBankHashesAdded, type HashBankHashesRemoved } from './catalog.events.js';
import { chunk } from './desired-catalog.js';
import { mayBeOfType } from './hash-lines.js';

/** The configuration file lists these hashes for the bank now (apply). */
export interface SyncConfiguredHashes {
  readonly type: 'SyncConfiguredHashes';
  readonly bankId: string;
  readonly hashes: readonly string[];
}

/** An operator imports these hashes into the bank (`warden bank import`). */
export interface ImportHashes {
  readonly type: 'ImportHashes';
  readonly bankId: string;
  readonly hashes: readonly string[];
}

/**
 * An operator removes these imported hashes from the bank (`warden bank remove`): an import's
 * mistake, such as a hash that flags what it should not. Only hashes an import put in; one the
 * configuration lists as well goes too, and the next apply adds it back while the file lists it.
 */
export interface RemoveImportedHashes {
  readonly type: 'RemoveImportedHashes';
  readonly bankId: string;
  readonly hashes: readonly string[];
}

export type HashBankCommand = SyncConfiguredHashes | ImportHashes | RemoveImportedHashes;

/**
 * The bank's events so far, newest first, each pointing to the one before: evolving adds one link
 * instead of copying sets of up to millions of hashes, and a decision reads the sets once.
 */
export interface HashBankState {
  readonly last: { readonly event: HashBankEvent; readonly before: HashBankState['last'] } | null;
}

/** The hashes the configuration put in and has not taken out, those an import put in, and every hash in the bank. */
function hashSets(state: HashBankState): { fromConfig: Set<string>; imported: Set<string>; present: Set<string> } {
  const events: HashBankEvent[] = [];
  for (let link = state.last; link; link = link.before) events.push(link.event);
  const fromConfig = new Set<string>();
  const imported = new Set<string>();
  const present = new Set<string>();
  for (const event of events.reverse()) {
    for (const h of event.data.hashes) {
      if (event.type === 'HashBankHashesAdded') {
        present.add(h);
        (event.data.source === 'config' ? fromConfig : imported).add(h);
      } else {
        present.delete(h);
        fromConfig.delete(h);
        imported.delete(h);
      }
    }
  }
  return { fromConfig, imported, present };
}

/**
 * How many hashes an import put in the bank, still there, that a bank of type `to` (stored as
 * `from`) would never match: all of them but those that could already be of type `to`, left by a
 * retype made before apply refused it (mayBeOfType).
 */
export function importedHashCount(state: HashBankState, from: HashType, to: HashType): number {
  let count = 0;
  for (const hash of hashSets(state).imported) if (!mayBeOfType(hash, to, from)) count++;
  return count;
}

/**
 * The banks whose hashType the file changes, with their index in `hashBanks`: a bank defined
 * before (archived too: the same id brings its stream back) under another type. Imported hashes
 * are of the type they were imported as, and apply cannot take them out, so a changed type would
 * leave them in the bank, never matching (an MD5 never equals a PDQ hash).
 */
export function retypedBanks(
  desired: readonly Pick<HashBankEntity, 'id' | 'hashType'>[],
  stored: Readonly<Record<string, { readonly entity: Pick<HashBankEntity, 'hashType'> }>>,
): { index: number; bankId: string; from: HashType; to: HashType }[] {
  return desired.flatMap((bank, index) => {
    const before = ownValue(stored, bank.id);
    return before === undefined || before.entity.hashType === bank.hashType
      ? []
      : [{ index, bankId: bank.id, from: before.entity.hashType, to: bank.hashType }];
  });
}

/**
 * A bank's hashes, on its own stream, from two sources that never undo each other: apply adds and
 * removes the configured ones, an import only adds. Events hold at most HASH_CHUNK hashes.
 */
export const hashBankDecider: Decider<HashBankCommand, HashBankState, HashBankEvent> = {
  eventTypes: { HashBankHashesAdded: true, HashBankHashesRemoved: true },
  initialState: { last: null },

  decide(command, current) {
    const state = hashSets(current);
    if (command.type === 'RemoveImportedHashes') {
      // A hash the configuration lists as well goes too: the next apply adds it back while the file lists it.
      const gone = [...new Set(command.hashes)].filter((h) => state.imported.has(h));
      return chunk(gone, HASH_CHUNK).map((hashes): HashBankHashesRemoved => ({
        type: 'HashBankHashesRemoved',
        data: { bankId: command.bankId, source: 'import', hashes },
      }));
    }
    if (command.type === 'ImportHashes') {
      const fresh = [...new Set(command.hashes)].filter((h) => !state.present.has(h));
      return chunk(fresh, HASH_CHUNK).map((hashes): HashBankHashesAdded => added(command.bankId, 'import', hashes));
    }
    const wanted = new Set(command.hashes);
    // An imported hash is the import's: the file neither adds it again nor takes it out (a log
    // written before this rule may hold a configured copy of an imported hash: it stays too).
    const removed = [...state.fromConfig].filter((h) => !wanted.has(h) && !state.imported.has(h));
    const addedHashes = [...wanted].filter((h) => !state.fromConfig.has(h) && !state.imported.has(h));
    return [
      ...chunk(removed, HASH_CHUNK).map((hashes): HashBankHashesRemoved => ({
        type: 'HashBankHashesRemoved',
        data: { bankId: command.bankId, source: 'config', hashes },
      })),
      ...chunk(addedHashes, HASH_CHUNK).map((hashes) => added(command.bankId, 'config', hashes)),
    ];
  },

  evolve(state, event) {
    return { last: { event, before: state.last } };
  },
};

function added(bankId: string, source: 'config' | 'import', hashes: string[]): HashBankHashesAdded {
  return { type: 'HashBankHashesAdded', data: { bankId, source, hashes } };
}
