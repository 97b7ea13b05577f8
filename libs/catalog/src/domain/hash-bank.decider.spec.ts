import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import { HASH_CHUNK, type HashBankEvent } from './catalog.events.js';
import { type HashBankCommand, hashBankDecider } from './hash-bank.decider.js';

const given = (events: HashBankEvent[], command: HashBankCommand) => hashBankDecider.decide(command, foldEvents(hashBankDecider, events));
const added = (source: 'config' | 'import', hashes: string[]): HashBankEvent => ({
  type: 'HashBankHashesAdded',
  data: { bankId: 'b', source, hashes },
});
const removed = (hashes: string[]): HashBankEvent => ({ type: 'HashBankHashesRemoved', data: { bankId: 'b', source: 'config', hashes } });
const sync = (hashes: string[]): HashBankCommand => ({ type: 'SyncConfiguredHashes', bankId: 'b', hashes });
const importing = (hashes: string[]): HashBankCommand => ({ type: 'ImportHashes', bankId: 'b', hashes });

describe('hash bank decider', () => {
  it('adds the configured hashes, then only what the configuration changes', () => {
    expect(given([], sync(['h1', 'h2']))).toEqual([added('config', ['h1', 'h2'])]);
    expect(given([added('config', ['h1', 'h2'])], sync(['h2', 'h3']))).toEqual([removed(['h1']), added('config', ['h3'])]);
    expect(given([added('config', ['h1', 'h2'])], sync(['h2', 'h1']))).toEqual([]);
  });

  it('never removes imported hashes when the configuration drops its own', () => {
    const history = [added('import', ['i1']), added('config', ['c1'])];
    expect(given(history, sync([]))).toEqual([removed(['c1'])]);
  });

  it('imports only hashes not already in the bank, from either source, each once', () => {
    const history = [added('config', ['c1']), added('import', ['i1'])];
    expect(given(history, importing(['c1', 'i1', 'n1', 'n1', 'n2']))).toEqual([added('import', ['n1', 'n2'])]);
    expect(given([...history, removed(['c1'])], importing(['c1']))).toEqual([added('import', ['c1'])]);
  });

  it(`writes at most ${HASH_CHUNK} hashes an event`, () => {
    const many = Array.from({ length: HASH_CHUNK + 1 }, (_, i) => `h${i}`);
    expect(given([], importing(many)).map((e) => e.data.hashes.length)).toEqual([HASH_CHUNK, 1]);
  });
});
