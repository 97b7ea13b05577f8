import 'reflect-metadata';
import { dirname } from 'node:path';
import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../apps/server/src/app.module.js';
import { ApplyConfigurationCommand, DefineQueueCommand, parseOrgConfig, type OrgConfig } from '#warden/catalog';
import { DomainError } from '#warden/kernel';
import { loadConfig } from '#warden/platform';
import { openStorage, type Storage } from '#warden/storage';
import { EXAMPLE, EXAMPLE_IDP_CERT, exampleText } from './support/config-files.js';
import { freshDataDir } from './support/warden-process.js';

const ENV = { ACME_HOOK_TOKEN: 't', ACME_IDP_CERT: EXAMPLE_IDP_CERT };

function parse(text: string): OrgConfig {
  const result = parseOrgConfig(text, {
    format: 'yaml',
    env: ENV,
    readHashesFile: (p) => readFileSync(`${dirname(EXAMPLE)}/${p}`, 'utf8'),
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

/** The apply command in process, on the real embedded store, to race two applies. */
describe('apply, concurrently', () => {
  let app: INestApplicationContext;
  let storage: Storage;
  const context = { orgId: 'acme', correlationId: 'test', actor: 'test' };

  beforeAll(async () => {
    const config = loadConfig({ WARDEN_DATA_DIR: freshDataDir(), WARDEN_LOG_LEVEL: 'silent' });
    storage = await openStorage(config);
    app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: false }), {
      logger: false,
    });
    await app.get(CommandBus).execute(new ApplyConfigurationCommand(parse(exampleText()), { prune: false, dryRun: false }, context));
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  it('lets one of two concurrent applies win; the other conflicts and changes nothing', async () => {
    const bus = app.get(CommandBus);
    // Each also renames the organization: the loser's rename must not land either.
    const a = parse(exampleText().replace('name: Spam\n', 'name: Spam A\n').replace('name: Acme Social\n', 'name: Acme A\n'));
    const b = parse(exampleText().replace('name: Spam\n', 'name: Spam B\n').replace('name: Acme Social\n', 'name: Acme B\n'));
    const outcomes = await Promise.allSettled([
      bus.execute(new ApplyConfigurationCommand(a, { prune: false, dryRun: false }, context)),
      bus.execute(new ApplyConfigurationCommand(b, { prune: false, dryRun: false }, context)),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(DomainError);
    expect((lost[0]!.reason as DomainError).type).toBe('/errors/concurrent-update-conflict');

    const names = (await storage.events.readAll())
      .filter((e) => e.type === 'PolicyDefined' && (e.data['entity'] as { id: string }).id === 'spam')
      .map((e) => (e.data['entity'] as { name: string }).name);
    expect(names).toHaveLength(2);
    expect(['Spam A', 'Spam B']).toContain(names[1]);
    const renames = (await storage.events.readAll()).filter((e) => e.type === 'OrganizationRenamed').map((e) => e.data['name']);
    expect(renames).toEqual([names[1] === 'Spam A' ? 'Acme A' : 'Acme B']);
  });

  it('decides console changes made at once in this process one after the other: both recorded, the second seeing the first', async () => {
    const bus = app.get(CommandBus);
    const define = () => bus.execute(new DefineQueueCommand('acme', 'create', null, { name: 'Racing' }, context));
    const [first, second] = await Promise.all([define(), define()]);
    // The second id is derived on a configuration that has the first queue already.
    expect([first.queue.id, second.queue.id]).toEqual(['racing', 'racing-2']);
  });

  it('stores a large hash bank as events of at most 10,000 hashes; a re-apply is a no-op and a removal removes only that', async () => {
    const hashes = Array.from({ length: 25_000 }, (_, i) => i.toString(16).padStart(64, '0'));
    const config = parse(exampleText());
    const big = {
      ...config,
      hashBanks: [...config.hashBanks, { id: 'big', name: 'Big', hashType: 'PDQ' as const, maxDistance: 31, hashes }],
    };
    const bus = app.get(CommandBus);
    const first = await bus.execute(new ApplyConfigurationCommand(big, { prune: false, dryRun: false }, context));
    expect(first.hashes).toEqual([{ bankId: 'big', added: 25_000, removed: 0 }]);
    const chunks = (await storage.events.readStream('hash_bank-acme:big')).map((e) => (e.data['hashes'] as string[]).length);
    expect(chunks).toEqual([10_000, 10_000, 5_000]);
    const again = await bus.execute(new ApplyConfigurationCommand(big, { prune: false, dryRun: false }, context));
    expect(again.eventsAppended).toBe(0);
    const fewer = { ...big, hashBanks: big.hashBanks.map((b) => (b.id === 'big' ? { ...b, hashes: hashes.slice(0, 24_000) } : b)) };
    const removed = await bus.execute(new ApplyConfigurationCommand(fewer, { prune: false, dryRun: false }, context));
    expect(removed.hashes).toEqual([{ bankId: 'big', added: 0, removed: 1_000 }]);
  });
});
