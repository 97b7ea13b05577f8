import { randomBytes } from 'node:crypto';
import type { QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { dsaAction as action, dsaItemType, dsaPolicy } from '../../../../test/support/transparency-fixture.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { GetCatalogSettingsQuery, GetEverEntitiesQuery } from '#warden/catalog';
import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition, TransparencySettings } from '#warden/catalog/contracts';
import { ProjectionRunner } from '#warden/eventstore';
import { type Clock, type JsonObject, randomIds } from '#warden/kernel';
import { type GuardedHttpClient, loadConfig, type OutboundRequest } from '#warden/platform';
import type { Filter, FindOptions } from '#warden/readstore';
import { AggregateStore, Keyring, type ProjectionHost, sealUrl } from '#warden/storage';
import { statementPuid, TRANSPARENCY_PROJECTION, transparencyProjection } from '../projections/transparency.projection.js';
import { statementDocId, TRANSPARENCY_STATEMENTS, type StatementFactsDoc } from '../projections/transparency.read-model.js';
import { batchIdOf, batchStream, DEFAULT_SUBMISSION_OPTIONS, StatementSubmitter } from './statement-submitter.js';
import { submissionReactor } from './submission.reactor.js';

const ORG = 'acme';

const hate: PolicyDefinition = {
  ...dsaPolicy('hate', {
    category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    decisionGround: 'DECISION_GROUND_ILLEGAL_CONTENT',
    illegalContentLegalGround: 'StGB § 130',
    illegalContentExplanation: 'Incites hatred.',
  }),
  name: 'Hate',
};
const post: ItemTypeDefinition = { ...dsaItemType('post', { contentType: ['CONTENT_TYPE_TEXT'] }), name: 'Post' };
const removed: ActionDefinition['dsa'] = { decisionVisibility: ['DECISION_VISIBILITY_CONTENT_REMOVED'] };

describe('statement submitter: forming batches', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /**
   * A submitter over a fresh data file, with a page of `formPage` unsent statements. Its catalog:
   * `remove` complete, `thank` mapped `dsa: false`, `bare` without a mapping (incomplete) until a
   * test maps it. The Database answers 201 to every batch; its URL is `url`, sealed as apply seals it.
   */
  function setup(formPage: number, url = 'https://transparency.example/api/v1/statements') {
    const stores = sqliteStores();
    const clock: Clock = { now: () => new Date() };
    const keyring = new Keyring([randomBytes(32)]);
    const runner = new ProjectionRunner(transparencyProjection, stores.events, stores.readStore);
    const projections = {
      catchUp: async (name: string) => {
        if (name === TRANSPARENCY_PROJECTION) await runner.catchUp();
      },
    } as unknown as ProjectionHost;
    const actions = new Map([
      ['remove', action('remove', removed)],
      ['thank', action('thank', false)],
      ['bare', action('bare', undefined)],
    ]);
    const transparency: TransparencySettings = {
      enabled: true,
      territorialScope: ['DE'],
      trustedFlaggers: [],
      accountType: null,
      submission: { ...sealUrl(url, keyring), headers: { authorization: 'Bearer dsa-token' } },
    };
    const queries = {
      execute: async (query: unknown) => {
        if (query instanceof GetCatalogSettingsQuery) return transparency;
        if (query instanceof GetEverEntitiesQuery) return { policy: [hate], action: [...actions.values()], itemType: [post] }[query.kind as string] ?? [];
        throw new Error(`unexpected query ${String(query)}`);
      },
    } as unknown as QueryBus;
    const posted: string[][] = [];
    const http = {
      request: async (req: OutboundRequest) => {
        posted.push((JSON.parse(String(req.body)) as { statements: Array<{ puid: string }> }).statements.map((s) => s.puid));
        return { status: 201, headers: {}, body: Buffer.from('{}'), url: req.url };
      },
    } as unknown as GuardedHttpClient;
    const aggregates = new AggregateStore(stores.events, clock, randomIds);
    const submitter = new StatementSubmitter(
      stores.events,
      stores.readStore,
      projections,
      clock,
      keyring,
      http,
      loadConfig({}, '/tmp'),
      { ...DEFAULT_SUBMISSION_OPTIONS, submit: true, batchWaitMs: 0, formPage },
      aggregates,
      queries,
    );
    const reactor = submissionReactor(submitter);
    cleanups.push(async () => {
      await submitter.onApplicationShutdown();
      await stores.close();
    });
    // What forming reads: each find of an organization's unsent statements, how many it returned
    // and of which actions. A look-up of the next action with unsent statements has limit 1; a page, more.
    const find = vi.spyOn(stores.readStore, 'find');
    const reads = async () =>
      (
        await Promise.all(
          find.mock.calls.map(async ([collection, filter, options], i) => {
            const found = (await find.mock.results[i]!.value) as StatementFactsDoc[];
            // Forming's reads name one organization (the start's look-ups bound the organization instead).
            return collection === TRANSPARENCY_STATEMENTS && typeof (filter as Filter | undefined)?.['orgId'] === 'string'
              ? [{ found: found.length, limit: (options as FindOptions).limit!, actions: found.map((f) => f.actionId) }]
              : [];
          }),
        )
      ).flat();
    /**
     * Waits for a forming to end: a pass over the actions (ended by a look-up that finds no further
     * action) in which no page came back full. The statements its pages read since `before`, by action.
     */
    const formed = async (before: number) => {
      const ended = (since: Awaited<ReturnType<typeof reads>>) => {
        let full = false;
        for (const r of since) {
          if (r.limit > 1 && r.found >= r.limit) full = true;
          if (r.limit === 1 && r.found === 0) {
            if (!full) return true;
            full = false;
          }
        }
        return false;
      };
      await waitFor(async () => ended((await reads()).slice(before)), 'a forming to end');
      return (await reads())
        .slice(before)
        .filter((r) => r.limit > 1)
        .flatMap((r) => r.actions);
    };
    /** A published action, delivered to the reactor as the worker's would be. */
    const publish = async (deliveryId: string, actionId: string, occurredAt: string, orgId = ORG) => {
      const event = anEvent(
        'ActionCallbackRequested',
        {
          deliveryId,
          item: { id: `p-${deliveryId}`, typeId: 'post', typeName: 'Post' },
          action: { id: actionId },
          policies: [{ id: 'hate', name: 'Hate', penalty: 'LOW' }],
          rules: [{ id: 'r1', name: 'r1' }],
          custom: {},
          creator: null,
        } as JsonObject,
        orgId,
      );
      const stream = `item_evaluation-${orgId}:${deliveryId}`;
      await stores.events.append(stream, [{ ...event, metadata: { ...event.metadata, occurredAt } }], 'any');
      await reactor.apply((await stores.events.readStream(stream)).at(-1)!, {
        get: async () => undefined,
        put: () => {},
        delete: () => {},
        writtenBefore: async () => false,
      });
    };
    const batchOf = async (deliveryId: string, orgId = ORG) =>
      (await stores.readStore.get<StatementFactsDoc>(TRANSPARENCY_STATEMENTS, statementDocId(orgId, deliveryId)))?.batchId ?? null;
    return { submitter, actions, posted, reads, formed, publish, batchOf, stores, wake: () => submitter.wake(ORG) };
  }

  const puid = (deliveryId: string) => statementPuid(ORG, deliveryId);
  const at = (second: number) => new Date(Date.UTC(2026, 2, 2, 10, 0, second)).toISOString();

  it('sends the complete statements behind a full page of ones it cannot send, oldest first', async () => {
    const { submitter, posted, publish, batchOf } = setup(3);
    const unsendable = ['t1', 't2', 't3', 't4', 'b1', 'b2', 'b3'];
    for (const [i, id] of unsendable.entries()) await publish(id, id.startsWith('t') ? 'thank' : 'bare', at(i));
    await publish('r2', 'remove', at(20));
    await publish('r1', 'remove', at(10));
    await submitter.start();
    await waitFor(() => posted.length > 0, 'the batch of r1 and r2');
    expect(posted).toEqual([[puid('r1'), puid('r2')]]);
    for (const id of unsendable) expect(await batchOf(id)).toBeNull();
  });

  it('wakes at its start every organization with an unsent statement, however many another one holds that it cannot send', async () => {
    const { submitter, posted, publish } = setup(3);
    // More than the 1,000 statements its start once looked at, all of the first organization in order.
    for (let i = 0; i < 1001; i++) await publish(`t${i}`, 'thank', at(i % 60), 'aaa');
    await publish('r1', 'remove', at(0), 'bbb');
    await submitter.start();
    await waitFor(() => posted.length > 0, "the batch of bbb's statement");
    expect(posted).toEqual([[statementPuid('bbb', 'r1')]]);
  });

  it('reads on from where it got to, back to a statement published out of order, and from the first once the mapping changes', async () => {
    const { submitter, actions, posted, reads, formed, publish, batchOf, wake } = setup(3);
    for (const [i, id] of ['t1', 't2', 'b1', 'b2', 't3', 't4', 'b3'].entries()) await publish(id, id.startsWith('t') ? 'thank' : 'bare', at(i + 10));
    await submitter.start();
    // The first forming reads every unsent statement it could send with a mapping fixed (the incomplete
    // ones; the last page's first again, to learn nothing follows it), and none of those it may never send.
    const first = await formed(0);
    expect(first.filter((a) => a === 'bare').length).toBeGreaterThanOrEqual(3);
    expect(first).not.toContain('thank');
    // The next reads where it stopped (the last statement read), not the three it could not send.
    const before = (await reads()).length;
    await publish('b4', 'bare', at(30));
    expect((await formed(before)).length).toBeLessThanOrEqual(2);
    // An action's statement sent, then one published with a time before it (another process's clock): still sent.
    await publish('r5', 'remove', at(20));
    await waitFor(() => posted.flat().includes(puid('r5')), 'the batch of r5');
    await publish('r6', 'remove', at(10));
    await waitFor(() => posted.flat().includes(puid('r6')), 'the batch of r6');
    expect(posted).toEqual([[puid('r5')], [puid('r6')]]);
    // The mapping fixed: the next wake-up sends the incomplete ones.
    actions.set('bare', action('bare', removed));
    wake();
    await waitFor(() => posted.flat().length === 6, 'the batches of the mapped statements');
    expect(posted.slice(2).flat().sort()).toEqual(['b1', 'b2', 'b3', 'b4'].map(puid).sort());
    for (const id of ['t1', 't2', 't3', 't4']) expect(await batchOf(id)).toBeNull();
  });

  it('never reads the statements of an action mapped dsa: false, however many: a forming costs the same with 5 or 60', async () => {
    const readWith = async (thanks: number) => {
      const { submitter, posted, formed, publish } = setup(3);
      for (let i = 0; i < thanks; i++) await publish(`t${i}`, 'thank', at(i % 60));
      await publish('r1', 'remove', at(30));
      await submitter.start();
      const read = await formed(0);
      await waitFor(() => posted.length > 0, 'the batch of r1');
      return read;
    };
    const few = await readWith(5);
    const many = await readWith(60);
    expect(many).toEqual(few);
    expect(many).toEqual(['remove']);
  });

  it('sends nothing to a URL with user info applied before apply refused it, and says why without showing it', async () => {
    // The outbound guard refuses credentials in a URL: every attempt failed with "invalid or unsupported URL".
    const { submitter, posted, publish, stores } = setup(3, 'https://dsa:s3cret@transparency.example/api/v1/statements');
    await publish('r1', 'remove', at(1));
    await submitter.start();
    const stream = batchStream(ORG, batchIdOf(ORG, [puid('r1')]));
    await waitFor(async () => (await stores.events.readStream(stream)).some((e) => e.type === 'StatementBatchAttemptFailed'), 'the failed attempt');
    const failed = (await stores.events.readStream(stream)).find((e) => e.type === 'StatementBatchAttemptFailed')!;
    expect(failed.data['error']).toBe('The submission URL has user info, which is not sent (the token is): remove it from the URL and apply');
    expect(JSON.stringify(await stores.events.readStream(stream))).not.toContain('s3cret');
    expect(posted).toEqual([]);
  });
});
