import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { HASH_CHUNK, type HashBankEvent } from './catalog.events.js';
import { type HashBankCommand, hashBankDecider, importedHashCount, retypedBanks } from './hash-bank.decider.js';

const spec = deciderSpecification(hashBankDecider);
const added = (source: 'config' | 'import', hashes: string[]): HashBankEvent => ({
  type: 'HashBankHashesAdded',
  data: { bankId: 'b', source, hashes },
});
const removed = (hashes: string[]): HashBankEvent => ({ type: 'HashBankHashesRemoved', data: { bankId: 'b', source: 'config', hashes } });
const sync = (hashes: string[]): HashBankCommand => ({ type: 'SyncConfiguredHashes', bankId: 'b', hashes });
const importing = (hashes: string[]): HashBankCommand => ({ type: 'ImportHashes', bankId: 'b', hashes });

describe('hash bank decider', () => {
  it('adds the configured hashes, then only what the configuration changes', () => {
    spec
      .given([])
      .when(sync(['h1', 'h2']))
      .then([added('config', ['h1', 'h2'])]);
    spec
      .given([added('config', ['h1', 'h2'])])
      .when(sync(['h2', 'h3']))
      .then([removed(['h1']), added('config', ['h3'])]);
    spec
      .given([added('config', ['h1', 'h2'])])
      .when(sync(['h2', 'h1']))
      .thenNothing();
  });

  it('never removes imported hashes when the configuration drops its own', () => {
    const history = [added('import', ['i1']), added('config', ['c1'])];
    spec
      .given(history)
      .when(sync([]))
      .then([removed(['c1'])]);
  });

  it('leaves a hash to the import that brought it, when the file declares it later and drops it again', () => {
    spec
      .given([added('import', ['h'])])
      .when(sync(['h', 'c']))
      .then([added('config', ['c'])]);
    spec
      .given([added('import', ['h']), added('config', ['c'])])
      .when(sync([]))
      .then([removed(['c'])]);
    // A log of the earlier rule, where the file added its own copy of the imported hash.
    spec
      .given([added('import', ['h']), added('config', ['h'])])
      .when(sync([]))
      .thenNothing();
  });

  it('imports only hashes not already in the bank, from either source, each once', () => {
    const history = [added('config', ['c1']), added('import', ['i1'])];
    spec
      .given(history)
      .when(importing(['c1', 'i1', 'n1', 'n1', 'n2']))
      .then([added('import', ['n1', 'n2'])]);
    spec
      .given([...history, removed(['c1'])])
      .when(importing(['c1']))
      .then([added('import', ['c1'])]);
  });

  it(`writes at most ${HASH_CHUNK} hashes an event`, () => {
    const many = Array.from({ length: HASH_CHUNK + 1 }, (_, i) => `h${i}`);
    expect(
      spec
        .given([])
        .when(importing(many))
        .events()
        .map((e) => e.data.hashes.length),
    ).toEqual([HASH_CHUNK, 1]);
  });
});

describe('removing imported hashes (bank remove)', () => {
  const removing = (hashes: string[]): HashBankCommand => ({ type: 'RemoveImportedHashes', bankId: 'b', hashes });
  const removedImported = (hashes: string[]): HashBankEvent => ({ type: 'HashBankHashesRemoved', data: { bankId: 'b', source: 'import', hashes } });

  it('removes the listed hashes an import put in, once each, the configuration listing one too or not; not its own, not what is absent', () => {
    spec
      .given([added('import', ['i1', 'i2', 'both']), added('config', ['c1', 'both'])])
      .when(removing(['i1', 'i1', 'c1', 'both', 'absent']))
      .then([removedImported(['i1', 'both'])]);
    // The next apply of a file that still lists it adds it back, as the configuration's.
    spec
      .given([added('import', ['both']), added('config', ['both']), removedImported(['both'])])
      .when(sync(['both']))
      .then([added('config', ['both'])]);
  });

  it('removes nothing a second time, and an import may bring a removed hash back', () => {
    const history = [added('import', ['i1']), removedImported(['i1'])];
    spec
      .given(history)
      .when(removing(['i1']))
      .thenNothing();
    spec
      .given(history)
      .when(importing(['i1']))
      .then([added('import', ['i1'])]);
  });

  it(`writes at most ${HASH_CHUNK} hashes an event`, () => {
    const many = Array.from({ length: HASH_CHUNK + 1 }, (_, i) => `h${i}`);
    spec
      .given([added('import', many)])
      .when(removing(many))
      .then([removedImported(many.slice(0, HASH_CHUNK)), removedImported(many.slice(HASH_CHUNK))]);
  });
});

describe('a bank the file gives another hashType', () => {
  const stored = { exact: { entity: { hashType: 'MD5' as const } }, near: { entity: { hashType: 'PDQ' as const } } };

  it('is named with its index in hashBanks, its stored and its new type; an unchanged or new bank is not', () => {
    const desired = [
      { id: 'fresh', hashType: 'SHA256' as const },
      { id: 'near', hashType: 'PDQ' as const },
      { id: 'exact', hashType: 'SHA256' as const },
    ];
    expect(retypedBanks(desired, stored)).toEqual([{ index: 2, bankId: 'exact', from: 'MD5', to: 'SHA256' }]);
    // Own properties only: a bank id such as `constructor` is a customer's id.
    expect(retypedBanks([{ id: 'constructor', hashType: 'MD5' }], stored)).toEqual([]);
  });

  it('counts the imported hashes still in the bank, not the configured ones', () => {
    const state = [added('import', ['i1', 'i2']), added('config', ['c1']), added('import', ['i2', 'i3'])].reduce(
      hashBankDecider.evolve,
      hashBankDecider.initialState,
    );
    expect(importedHashCount(state, 'PDQ', 'SHA256')).toBe(3);
    expect(importedHashCount(hashBankDecider.initialState, 'PDQ', 'SHA256')).toBe(0);
  });

  it('does not count imported hashes that already fit the new type, left by a retype made before apply refused it', () => {
    const md5 = 'a'.repeat(32);
    const wide = 'b'.repeat(64);
    const state = [added('import', [md5, wide])].reduce(hashBankDecider.evolve, hashBankDecider.initialState);
    // A SHA256 bank holding an MD5 import: going back to MD5, the 32-character one fits.
    expect(importedHashCount(state, 'SHA256', 'MD5')).toBe(1);
    // PDQ and SHA-256 are both 64 characters: from PDQ, a 64-character import is taken as PDQ.
    expect(importedHashCount(state, 'PDQ', 'SHA256')).toBe(2);
  });
});
