import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '#warden/eventstore';
import { type ReadStore, SqliteReadStore } from '#warden/readstore';
import { contentDigest, genesisLink, nextLink, storedForm } from './audit-chain.js';
import { AUDIT_CHAIN_HEADS, AUDIT_CHAIN_LINKS, auditChainProjection, type ChainLinkDoc } from './audit-chain.projection.js';
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
    closers.push(() => events.close(), () => reads.close(), () => db.close());
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
      return stored
        .filter((e) => e.metadata.orgId === orgId)
        .map((e, i) => ({ seq: i + 1, position: e.position, link: (link = nextLink(link, contentDigest(storedForm(e)))) }));
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
    expect(after.at(-1)!.link).toBe(nextLink(once[1]!.link, contentDigest(storedForm((await events.readAll()).at(-1)!))));
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
});
