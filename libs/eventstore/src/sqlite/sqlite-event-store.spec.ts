import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { RecordedEvent } from '#warden/kernel';
import { streamName } from '#warden/kernel';
import { openSqlite } from './sqlite-database.js';

describe('SqliteEventStore typed reads', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('hands a typed subscriber only its types, with empty batches that carry the position past the rest', async () => {
    stores = sqliteStores();
    await stores.events.append(streamName('mixed', 'a'), [anEvent('Wanted'), ...Array.from({ length: 1200 }, () => anEvent('Noise')), anEvent('Wanted')], 'no_stream');
    const head = await stores.events.headPosition();
    const batches: Array<{ types: string[]; through: number | undefined }> = [];
    const sub = stores.events.subscribeToAll({
      eventTypes: ['Wanted'],
      onEvents: async (events: readonly RecordedEvent[], through?: number) => {
        batches.push({ types: events.map((e) => e.type), through });
      },
    });
    await waitFor(() => batches.at(-1)?.through === head, `a batch through position ${head}`);
    await stores.events.append(streamName('mixed', 'b'), [anEvent('Noise')], 'no_stream');
    await waitFor(() => batches.at(-1)?.through === head + 1, `a batch through position ${head + 1}`);
    await sub.stop();
    expect(batches.flatMap((b) => b.types)).toEqual(['Wanted', 'Wanted']);
    expect(batches.at(-1)).toEqual({ types: [], through: head + 1 });
  });

  it('reads only the named types with readAll', async () => {
    stores = sqliteStores();
    await stores.events.append(streamName('mixed', 'a'), [anEvent('Noise'), anEvent('Wanted'), anEvent('Other')], 'no_stream');
    const read = await stores.events.readAll({ eventTypes: ['Wanted', 'Other'] });
    expect(read.map((e) => e.type)).toEqual(['Wanted', 'Other']);
  });
});

describe('openSqlite', () => {
  it('opens in WAL mode with a 64 MiB page cache and 10,000-page checkpoints unless told otherwise', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-open-')), 'warden.db');
    const db = openSqlite(file);
    const small = openSqlite(file, { cacheMiB: 8 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(small.pragma('cache_size', { simple: true })).toBe(-8192);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    db.close();
    small.close();
  });
});
