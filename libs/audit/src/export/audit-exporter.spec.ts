import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueryBus } from '@nestjs/cqrs';
import { GetSigningKeysQuery, SignWithOrganizationKeyQuery } from '#warden/callbacks';
import { FixedClock, type NewEvent, randomIds } from '#warden/kernel';
import { Metrics } from '#warden/platform';
import { AggregateStore, ProjectionHost, type Storage } from '#warden/storage';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { AUDIT_CHAIN_HEADS, AUDIT_CHAIN_LINKS, auditChainProjection, type ChainHeadDoc, chainLinkId } from '../chain/audit-chain.projection.js';
import { auditChainStream } from '../chain/audit-chain.streams.js';
import { auditCheckpointDecider } from '../chain/audit-checkpoint.decider.js';
import { AuditExporter } from './audit-exporter.js';
import { okpThumbprint } from './audit-head.js';
import { verifyAuditExport } from './audit-verifier.js';

/**
 * Issue 31 item 12: a range export seeks to its range (docs/audit.md, "Exporting": the chain's
 * index on (orgId, occurredAt, seq) proposes its edges, the log's times decide them, the log is
 * read from the first one's position), so what it reads is bounded by the range, not by the log. Measured at the store port (the events the
 * log's reads hand back), not in time: a whole-log scan reads every event before the range.
 */
const EVENTS = 2000;
/** The exporter's page of log reads (audit-exporter.ts): a range's read may run one page past it. */
const PAGE = 500;
const T0 = Date.UTC(2026, 0, 1);
const minute = (n: number) => new Date(T0 + n * 60_000);

describe('a range export', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /**
   * A log of 2,000 events, `acme` and `other` alternating, event i occurring at minute i; the
   * audit chain caught up over it; an exporter whose log reads are counted. Signing is the only
   * stand-in (a real Ed25519 key, as the callbacks module's would sign), so verify checks the result.
   */
  async function exporterOverLongLog(orgOf: (i: number) => string = (i) => (i % 2 === 0 ? 'acme' : 'other')) {
    const stores = sqliteStores();
    closers.push(() => stores.close());
    const batch: NewEvent[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const e = anEvent('Noted', { i }, orgOf(i));
      batch.push({ ...e, metadata: { ...e.metadata, occurredAt: minute(i).toISOString() } });
    }
    for (let i = 0; i < batch.length; i += 100) await stores.events.append(`notes-${i / 100}`, batch.slice(i, i + 100), 'no_stream');

    const counted = new CountingEventStore(stores.events);
    const storage = { events: counted, storedEvents: counted, readStore: stores.readStore, sequentialPositions: true } as unknown as Storage;
    const host = new ProjectionHost(storage, new Metrics(), { reactorLease: { ttlMs: 10_000, renewEveryMs: 3_000 } }, new FixedClock(minute(EVENTS)));
    host.register(auditChainProjection);
    await host.ensureIndexes();
    await host.catchUp(auditChainProjection.name);

    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x!;
    const jwk = { kty: 'OKP', crv: 'Ed25519', x, kid: okpThumbprint(x) };
    const queries = {
      execute: async (query: unknown) => {
        if (query instanceof GetSigningKeysQuery) return { keys: [jwk] };
        if (query instanceof SignWithOrganizationKeyQuery) return { kid: jwk.kid, signature: sign(null, query.payload, privateKey).toString('base64url') };
        throw new Error(`unexpected query ${String(query)}`);
      },
    } as unknown as QueryBus;
    // The checkpoint stream's state is read through the aggregates, beside the counted reads of the export.
    const aggregates = new AggregateStore(stores.events, new FixedClock(minute(EVENTS)), randomIds);
    const exporter = new AuditExporter(storage, host, new FixedClock(minute(EVENTS + 1)), queries, aggregates);
    counted.reset();
    return { exporter, counted, storage, host, aggregates, jwks: { keys: [jwk] } };
  }

  const collect = async (lines: AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const line of lines) out.push(line);
    return out;
  };
  const eventLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['kind'] === 'event');

  it("from after the last event reads one event of the log: acme's last, to see that it occurred before", async () => {
    const { exporter, counted, jwks } = await exporterOverLongLog();

    const lines = await collect(exporter.lines({ orgId: 'acme', from: minute(EVENTS + 10) }));

    expect(eventLines(lines)).toEqual([]);
    // The range's edge is the log's to find, not the chain index's: acme's last event (minute 1998).
    expect(counted.logPositionsRead).toEqual([EVENTS - 1]);
    // Still a whole, verifiable export: its header's `previous` is acme's last link.
    const report = await verifyAuditExport(lines, { jwks });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('a narrow range in the middle of the log reads from the range on, at most a page past it', async () => {
    const { exporter, counted, jwks } = await exporterOverLongLog();
    // Minutes 1000..1019: acme's events 1000, 1002, …, 1018, at log positions 1001..1019.
    const lines = await collect(exporter.lines({ orgId: 'acme', from: minute(1000), to: minute(1019) }));

    const events = eventLines(lines);
    expect(events.map((e) => (e['stored'] as { data: { i: number } }).data.i)).toEqual(Array.from({ length: 10 }, (_, k) => 1000 + 2 * k));
    expect(events[0]!['seq']).toBe(501);
    // Nothing before the range is read but the event before it (its time, from the log, places the
    // range's edge), and what is read past it is one page at most.
    const firstInRange = events[0]!['position'] as number;
    expect(counted.logPositionsRead.filter((p) => p < firstInRange)).toEqual([firstInRange - 2]);
    // A page, and the three events the edges are checked at: 500 and 501 for the start, 511 for the end.
    expect(counted.logEventsRead).toBeLessThanOrEqual(PAGE + 3);
    expect(counted.logEventsRead).toBeLessThan(EVENTS / 2);
    const report = await verifyAuditExport(lines, { jwks });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });

  /** Someone who can write read-models.db sets the time the chain's index records for acme's event `seq`. */
  const indexTimeOf = async (storage: Storage, seq: number, at: Date) => {
    const [link] = await storage.readStore.find<{ id: string; position: number }>(AUDIT_CHAIN_LINKS, { orgId: 'acme', seq });
    const { id: _id, ...doc } = link!;
    await storage.readStore.commit([
      { op: 'put', collection: AUDIT_CHAIN_LINKS, id: chainLinkId('acme', link!.position), doc: { ...doc, occurredAt: at.toISOString() } as never },
    ]);
  };
  const dataOf = (lines: string[]) => eventLines(lines).map((e) => (e['stored'] as { data: { i: number } }).data.i);

  it("finds its range's edges by the times the log holds, so that times changed in the chain's index neither drop events from it nor pull others in", async () => {
    const { exporter, storage, jwks } = await exporterOverLongLog();
    // Minutes 1000..1019 hold acme's events 501..510 (minutes 1000, 1002, …, 1018). Their first two
    // and last two are moved out of the range in the index, and event 499 (minute 996) into it.
    await indexTimeOf(storage, 501, minute(10));
    await indexTimeOf(storage, 502, minute(10));
    await indexTimeOf(storage, 509, minute(1990));
    await indexTimeOf(storage, 510, minute(1990));
    await indexTimeOf(storage, 499, minute(1001));

    const lines = await collect(exporter.lines({ orgId: 'acme', from: minute(1000), to: minute(1019) }));

    expect(dataOf(lines)).toEqual(Array.from({ length: 10 }, (_, k) => 1000 + 2 * k));
    expect(eventLines(lines)[0]!['seq']).toBe(501);
    expect((await verifyAuditExport(lines, { jwks })).ok).toBe(true);
  });

  it("exports a range whose every event the chain's index was made to place before it", async () => {
    const { exporter, storage, jwks } = await exporterOverLongLog();
    // acme's last five events, minutes 1990..1998 (seq 996..1000), all moved to minute 10 in the index.
    for (let seq = 996; seq <= 1000; seq++) await indexTimeOf(storage, seq, minute(10));

    const lines = await collect(exporter.lines({ orgId: 'acme', from: minute(1990) }));

    expect(dataOf(lines)).toEqual([1990, 1992, 1994, 1996, 1998]);
    expect((await verifyAuditExport(lines, { jwks })).ok).toBe(true);
  });

  it('refuses to export over a hole in the recorded chain, where it used to stop there and sign a short file', async () => {
    const { exporter, storage } = await exporterOverLongLog((i) => (i < 100 ? 'acme' : 'other'));
    const [link] = await storage.readStore.find<{ id: string; seq: number; position: number }>(AUDIT_CHAIN_LINKS, { orgId: 'acme', seq: 50 });
    await storage.readStore.commit([{ op: 'delete', collection: AUDIT_CHAIN_LINKS, id: chainLinkId('acme', link!.position) }]);
    await expect(collect(exporter.lines({ orgId: 'acme' }))).rejects.toThrow(
      `The audit chain of acme has no link for event 50 (log position ${link!.position}) although its head is past it`,
    );
    // A range that ends before the hole is whole, and exports.
    expect(eventLines(await collect(exporter.lines({ orgId: 'acme', to: minute(40) })))).toHaveLength(41);
  });

  it('refuses to export when the recorded head was set back behind a checkpoint the log holds signed, where it signed the cut history', async () => {
    const { exporter, storage, host, aggregates } = await exporterOverLongLog((i) => (i < 100 ? 'acme' : 'other'));
    const head = (await storage.readStore.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, 'acme'))!;
    expect(head.seq).toBe(100);
    // The worker's checkpoint of that head, then the chain catches up over it (a checkpoint is an event of the organization).
    await aggregates.handle(
      auditChainStream('acme'),
      auditCheckpointDecider,
      {
        type: 'CheckpointAuditChain',
        head: { seq: head.seq, position: head.position, link: head.link },
        kid: 'k',
        signature: 's',
        now: minute(EVENTS).toISOString(),
      },
      { orgId: 'acme', correlationId: 'c', actor: 'audit' },
    );
    await host.catchUp(auditChainProjection.name);
    expect(eventLines(await collect(exporter.lines({ orgId: 'acme' })))).toHaveLength(101);
    // Someone who can write read-models.db sets the head back to event 50.
    const [fifty] = await storage.readStore.find<ChainHeadDoc>(AUDIT_CHAIN_LINKS, { orgId: 'acme', seq: 50 });
    await storage.readStore.commit([{ op: 'put', collection: AUDIT_CHAIN_HEADS, id: 'acme', doc: { ...fifty!, activitySeq: 50 } as never }]);
    await expect(collect(exporter.lines({ orgId: 'acme' }))).rejects.toThrow(
      'The audit chain of acme records its head at event 50, behind event 100 that a checkpoint in the log signed',
    );
  });

  it("ends its read at the organization's last event in range, however much of the log other organizations wrote after it", async () => {
    // acme writes the first 100 events, `other` the 1,900 after them.
    const { exporter, counted, jwks } = await exporterOverLongLog((i) => (i < 100 ? 'acme' : 'other'));

    const ranged = await collect(exporter.lines({ orgId: 'acme', from: minute(10), to: minute(49) }));
    expect(eventLines(ranged)).toHaveLength(40);
    expect(Math.max(...counted.logPositionsRead)).toBeLessThanOrEqual(11 + PAGE);
    expect((await verifyAuditExport(ranged, { jwks })).ok).toBe(true);

    counted.reset();
    const whole = await collect(exporter.lines({ orgId: 'acme' }));
    expect(eventLines(whole)).toHaveLength(100);
    // One page from the start at most: the chain head says event 100 is acme's last.
    expect(counted.logEventsRead).toBeLessThanOrEqual(PAGE);
    expect((await verifyAuditExport(whole, { jwks })).ok).toBe(true);
  });
});
