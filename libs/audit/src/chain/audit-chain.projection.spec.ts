import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '#warden/eventstore';
import { type ReadStore, SqliteReadStore } from '#warden/readstore';
import { chainV1, contentDigest, genesisLink, linkOf, storedForm } from './audit-chain.js';
import {
  AUDIT_CHAIN_HEADS,
  AUDIT_CHAIN_LINKS,
  auditChainProjection,
  chainLinkId,
  type ChainLinkDoc,
  LEGACY_CHAIN_HEADS,
  LEGACY_CHAIN_LINKS,
} from './audit-chain.projection.js';
import { crashingBeforeCheckpoint } from '../../../../test/support/crashing-read-store.js';

const crash = new Error('died after the writes, before the checkpoint');

describe('the audit chain projection', () => {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  function log() {
    const dir = mkdtempSync(join(tmpdir(), 'warden-chain-'));
    const db = openSqlite(join(dir, 'warden.db'), { synchronous: 'normal' });
    const events = new SqliteEventStore(db);
    const reads = new SqliteReadStore(openSqlite(join(dir, 'warden.db'), { synchronous: 'normal' }));
    closers.push(
      () => events.close(),
      () => reads.close(),
      () => db.close(),
    );
    return { events, reads };
  }

  const inOrg = (orgId: string, type = 'Noted', n = 0) => {
    const e = anEvent(type, { n });
    return { ...e, metadata: { ...e.metadata, orgId } };
  };
  const linksOf = async (reads: ReadStore, orgId: string) =>
    (await reads.find<ChainLinkDoc & { [k: string]: unknown }>(AUDIT_CHAIN_LINKS, { orgId }, { sort: [{ field: 'seq', direction: 'asc' }] })).map(
      ({ seq, position, link }) => ({ seq, position, link }),
    );

  it("links each organization's events in log order, over the event as stored, from its own genesis", async () => {
    const { events, reads } = log();
    await events.append('s-1', [inOrg('a', 'Noted', 1), inOrg('b', 'Noted', 2)], 'no_stream');
    await events.append('s-2', [inOrg('a', 'Noted', 3)], 'no_stream');
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();

    const stored = await events.readAll();
    const expected = (orgId: string) => {
      let link = genesisLink(orgId);
      return stored.filter((e) => e.metadata.orgId === orgId).map((e, i) => ({ seq: i + 1, position: e.position, link: (link = linkOf(link, e)) }));
    };
    expect(await linksOf(reads, 'a')).toEqual(expected('a'));
    expect(await linksOf(reads, 'b')).toEqual(expected('b'));
    expect(genesisLink('a')).not.toBe(genesisLink('b'));
    expect(await reads.get(AUDIT_CHAIN_HEADS, 'a')).toMatchObject({ seq: 2, link: expected('a')[1]!.link, activitySeq: 2 });
  });

  it('does not count a checkpoint as activity that calls for another checkpoint', async () => {
    const { events, reads } = log();
    await events.append('s-1', [inOrg('a'), inOrg('a')], 'no_stream');
    await events.append('audit_chain-a', [inOrg('a', 'AuditChainCheckpointed')], 'no_stream');
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();
    expect(await reads.get(AUDIT_CHAIN_HEADS, 'a')).toMatchObject({ seq: 3, activitySeq: 2 });
  });

  it('redelivering a batch whose links landed without its checkpoint changes no link', async () => {
    const { events, reads } = log();
    await events.append('s-1', [inOrg('a', 'Noted', 1), inOrg('a', 'Noted', 2), inOrg('b', 'Noted', 3)], 'no_stream');
    await expect(new ProjectionRunner(auditChainProjection, events, crashingBeforeCheckpoint(reads, crash)).catchUp()).rejects.toBe(crash);
    const once = await linksOf(reads, 'a');
    // More events arrive before the restart; the redelivered batch holds the old ones and these.
    await events.append('s-1', [inOrg('a', 'Noted', 4)], 2);
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();

    const after = await linksOf(reads, 'a');
    expect(after.slice(0, 2)).toEqual(once);
    expect(after.map((l) => l.seq)).toEqual([1, 2, 3]);
    expect(after.at(-1)!.link).toBe(linkOf(once[1]!.link, (await events.readAll()).at(-1)!));
  });

  it('is kept by a read-model rebuild: it is evidence about the log, not a read model', async () => {
    const { rebuildReadModels } = await import('#warden/eventstore');
    const { events, reads } = log();
    await events.append('s-1', [inOrg('a')], 'no_stream');
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();
    const before = await linksOf(reads, 'a');
    await rebuildReadModels([auditChainProjection], events, reads);
    expect(await linksOf(reads, 'a')).toEqual(before);
    expect(await reads.checkpoint(auditChainProjection.name)).toBe(await events.headPosition());
  });

  it('chains a credential only through its digest, so an export without it still verifies', async () => {
    const { events } = log();
    const e = anEvent('UserPasswordSet', { userId: 'u1', passwordHash: 'scrypt$secret' });
    await events.append('user-a:u1', [{ ...e, metadata: { ...e.metadata, orgId: 'a' } }], 'no_stream');
    const [stored] = await events.readAll();
    const { canonicalJsonDigest } = await import('#warden/kernel');
    const digested = { ...storedForm(stored!), data: { userId: 'u1', passwordHash: { $sha256: canonicalJsonDigest('scrypt$secret') } } };
    expect(contentDigest(digested)).toBe(contentDigest(storedForm(stored!)));
    // Any other field replaced by a digest changes the content.
    expect(contentDigest({ ...storedForm(stored!), data: { userId: { $sha256: canonicalJsonDigest('u1') }, passwordHash: 'scrypt$secret' } })).not.toBe(
      contentDigest(storedForm(stored!)),
    );
  });

  /** A log of `n` events of organization `a`, and its v1 links and head as the previous release recorded them. */
  async function chainedUnderV1(n: number, recorded: (i: number) => boolean = () => true, changed = -1) {
    const { events, reads } = log();
    await events.append(
      's-1',
      Array.from({ length: n }, (_, i) => inOrg('a', 'Noted', i + 1)),
      'no_stream',
    );
    const stored = await events.readAll();
    let link = chainV1.genesisLink('a');
    const writes = stored.map((e, i) => {
      link = chainV1.linkOf(link, i === changed ? { ...e, data: { n: 99 } } : e);
      return {
        op: 'put' as const,
        collection: LEGACY_CHAIN_LINKS,
        id: chainLinkId('a', e.position),
        doc: { orgId: 'a', seq: i + 1, position: e.position, link },
      };
    });
    const last = writes.at(-1)!.doc;
    await reads.commit([
      ...writes.filter((_, i) => recorded(i)),
      { op: 'put', collection: LEGACY_CHAIN_HEADS, id: 'a', doc: { ...last, activitySeq: last.seq } },
    ]);
    return { events, reads };
  }

  it('compares a data directory chained under v1 with the log while it rebuilds the chain under v2, and counts what differs', async () => {
    // The second v1 link recorded for another content.
    const { events, reads } = await chainedUnderV1(3, () => true, 1);
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();
    expect(await reads.get(AUDIT_CHAIN_HEADS, 'a')).toMatchObject({ seq: 3, legacy: { checked: 3, differs: 1, firstDiffers: 2 } });
  });

  it('counts a v1 link removed from within the prefix v1 chained as a difference', async () => {
    const { events, reads } = await chainedUnderV1(4, (i) => i !== 0);
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();
    expect(await reads.get(AUDIT_CHAIN_HEADS, 'a')).toMatchObject({ seq: 4, legacy: { checked: 4, differs: 1, firstDiffers: 1 } });
  });

  it('stops comparing past the prefix v1 chained, and looks for no v1 link on a data directory v1 never chained', async () => {
    const { events, reads } = await chainedUnderV1(2);
    await events.append('s-2', [inOrg('a', 'Noted', 3), inOrg('b', 'Noted', 1), inOrg('b', 'Noted', 2), inOrg('b', 'Noted', 3)], 'no_stream');
    const looked: string[] = [];
    const getVersioned = reads.getVersioned.bind(reads);
    // The narrowest seam: which collections the projection reads.
    reads.getVersioned = ((collection: string, id: string) => (looked.push(collection), getVersioned(collection, id))) as typeof reads.getVersioned;
    await new ProjectionRunner(auditChainProjection, events, reads).catchUp();
    expect(await reads.get(AUDIT_CHAIN_HEADS, 'a')).toMatchObject({ seq: 3, legacy: { checked: 2, differs: 0, firstDiffers: null } });
    expect(await reads.get<{ legacy?: unknown }>(AUDIT_CHAIN_HEADS, 'b')).not.toHaveProperty('legacy');
    // Two v1 links of a, and one v1 head per organization.
    expect(looked.filter((c) => c === LEGACY_CHAIN_LINKS)).toHaveLength(2);
    expect(looked.filter((c) => c === LEGACY_CHAIN_HEADS)).toHaveLength(2);
  });
});
