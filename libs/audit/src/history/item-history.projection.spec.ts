import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crashingPartway } from '../../../../test/support/crashing-read-store.js';
import { anEvent } from '../../../../test/support/events.js';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '#warden/eventstore';
import { SqliteReadStore } from '#warden/readstore';
import type { NewEvent } from '#warden/kernel';
import { ITEM_HISTORY, ITEM_HISTORY_STREAMS, type ItemHistoryDoc, itemHistoryProjection, MAX_CARRIED_REFS } from './item-history.projection.js';

describe('the item history index', () => {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A fresh data file's log and read store, closed after the test. */
  function freshStores() {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-history-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const events = new SqliteEventStore(db);
    const reads = new SqliteReadStore(openSqlite(file, { synchronous: 'normal' }));
    closers.push(
      () => events.close(),
      () => reads.close(),
      () => db.close(),
    );
    return { events, reads };
  }

  async function indexed(append: (events: SqliteEventStore) => Promise<void>) {
    const { events, reads } = freshStores();
    await append(events);
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    const of = async (typeId: string, itemId: string) =>
      (
        await reads.find<ItemHistoryDoc & Record<string, never>>(
          ITEM_HISTORY,
          { orgId: 'acme', typeId, itemId },
          { sort: [{ field: 'position', direction: 'asc' }] },
        )
      ).map((d) => d.type);
    /** The entries of the subject, oldest first: each event's type, `!` after the child-safety ones. */
    const flagged = async (typeId: string, itemId: string) =>
      (
        await reads.find<ItemHistoryDoc & Record<string, never>>(
          ITEM_HISTORY,
          { orgId: 'acme', typeId, itemId },
          { sort: [{ field: 'position', direction: 'asc' }] },
        )
      ).map((d) => (d.childSafety === true ? `${d.type}!` : d.type));
    return { of, flagged, events, reads };
  }

  /** The event, caused by `cause` (its causationId), as a reactor records what an event caused. */
  const causedBy = (cause: NewEvent, event: NewEvent): NewEvent => ({ ...event, metadata: { ...event.metadata, causationId: cause.id } });

  it('indexes what events name: the item, its creator, the reported and appealed item, the people, a strike stream', async () => {
    const { of } = await indexed(async (events) => {
      await events.append(
        'item-acme:post:p1',
        [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: { id: 'u1', typeId: 'user' } })],
        'no_stream',
      );
      await events.append(
        'report-acme:r1',
        [anEvent('ReportSubmitted', { reportedItem: { id: 'p1', typeId: 'post' }, reporter: { kind: 'user', id: 'u2', typeId: 'user' } })],
        'no_stream',
      );
      await events.append('appeal-acme:a1', [anEvent('AppealSubmitted', { actionedItem: { id: 'p1', typeId: 'post' }, subject: 'user:u1' })], 'no_stream');
      await events.append('user_strikes-acme:user:u1', [anEvent('UserStrikesApplied', { item: { id: 'p1', typeId: 'post' } })], 'no_stream');
      await events.append('org_config-acme', [anEvent('ItemTypeDefined', { id: 'post' })], 'no_stream');
    });
    expect(await of('post', 'p1')).toEqual(['ItemSubmitted', 'ReportSubmitted', 'AppealSubmitted', 'UserStrikesApplied']);
    expect(await of('user', 'u1')).toEqual(['ItemSubmitted', 'AppealSubmitted', 'UserStrikesApplied']);
    expect(await of('user', 'u2')).toEqual(['ReportSubmitted']);
  });

  it("gives a stream's later events to what its first events named (a job's claims and decisions)", async () => {
    const { of } = await indexed(async (events) => {
      await events.append('review_job-acme:j1', [anEvent('ReviewJobOpened', { jobId: 'j1', item: { id: 'p1', typeId: 'post' } })], 'no_stream');
      await events.append(
        'review_job-acme:j1',
        [anEvent('ReviewJobClaimed', { jobId: 'j1' }), anEvent('ReviewJobDecided', { jobId: 'j1', type: 'IGNORE' })],
        0,
      );
      await events.append('review_job-acme:j2', [anEvent('ReviewJobClaimed', { jobId: 'j2' })], 'no_stream');
    });
    expect(await of('post', 'p1')).toEqual(['ReviewJobOpened', 'ReviewJobClaimed', 'ReviewJobDecided']);
  });

  it("keeps a record of a stream only where its name does not say what it is about (an item's stream, its evaluations)", async () => {
    const { of, reads } = await indexed(async (events) => {
      await events.append('item-acme:post:p1', [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: null })], 'no_stream');
      await events.append('item-acme:post:p1', [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: null })], 0);
      await events.append(
        'item_evaluation-acme:post:p1:0:LIVE',
        [anEvent('ItemEvaluated', { item: { id: 'p1', typeId: 'post' } }), anEvent('ActionsNoted', {})],
        'no_stream',
      );
      await events.append(
        'item-acme:post:p2',
        [anEvent('ItemSubmitted', { itemId: 'p2', typeId: 'post', creator: { id: 'u1', typeId: 'user' } })],
        'no_stream',
      );
      await events.append('item-acme:post:p2', [anEvent('ItemSubmitted', { itemId: 'p2', typeId: 'post', creator: null })], 0);
      await events.append('review_job-acme:j1', [anEvent('ReviewJobOpened', { jobId: 'j1', item: { id: 'p1', typeId: 'post' } })], 'no_stream');
    });
    expect(await of('post', 'p1')).toEqual(['ItemSubmitted', 'ItemSubmitted', 'ItemEvaluated', 'ActionsNoted', 'ReviewJobOpened']);
    // A later version without the creator is still part of the creator's history, as the first named them.
    expect(await of('user', 'u1')).toEqual(['ItemSubmitted', 'ItemSubmitted']);
    const recorded = (await reads.find<{ refs: unknown[] }>(ITEM_HISTORY_STREAMS, {})).length;
    expect(recorded).toBe(2); // p2's stream (it names a creator) and the job's, not p1's item or evaluation streams
  });

  it("indexes each event of a stream that gathers many items (a user's strikes, a rule's day) under what it names alone", async () => {
    const n = 200;
    const { of, reads } = await indexed(async (events) => {
      const strikes = Array.from({ length: n }, (_, i) => anEvent('UserStrikesApplied', { item: { id: `p${i}`, typeId: 'post' } }));
      await events.append('user_strikes-acme:user:u1', strikes, 'no_stream');
      const counted = Array.from({ length: n }, (_, i) => anEvent('RuleDailyActionCounted', { ruleId: 'r1', item: { id: `p${i}`, typeId: 'post' } }));
      await events.append('rule_daily_actions-acme:r1:2026-11-28', counted, 'no_stream');
    });
    expect(await of('post', 'p0')).toEqual(['UserStrikesApplied', 'RuleDailyActionCounted']);
    expect(await of('user', 'u1')).toHaveLength(n);
    // One entry per item an event names, and the user of the strike stream: linear in the stream's length.
    expect(await reads.count(ITEM_HISTORY, {})).toBe(n * 2 + n);
  });

  it("carries at most a few refs to a stream's later events (a job merged from many reports)", async () => {
    const reporters = 50;
    const { of, reads } = await indexed(async (events) => {
      await events.append('review_job-acme:j1', [anEvent('ReviewJobOpened', { jobId: 'j1', item: { id: 'p1', typeId: 'post' } })], 'no_stream');
      const merged = Array.from({ length: reporters }, (_, i) => anEvent('ReviewJobMerged', { jobId: 'j1', reporter: { id: `r${i}`, typeId: 'user' } }));
      await events.append('review_job-acme:j1', [...merged, anEvent('ReviewJobClaimed', { jobId: 'j1' })], 0);
    });
    expect(await of('post', 'p1')).toHaveLength(reporters + 2);
    expect(await of('user', 'r0')).toEqual(['ReviewJobMerged', ...Array(reporters - 1).fill('ReviewJobMerged'), 'ReviewJobClaimed']);
    expect(await of('user', `r${reporters - 1}`)).toEqual(['ReviewJobMerged']);
    const [stream] = await reads.find<{ refs: unknown[] }>(ITEM_HISTORY_STREAMS, {});
    expect(stream!.refs).toHaveLength(MAX_CARRIED_REFS);
  });

  it('writes the same entries again when the log is applied again (keyed by log position)', async () => {
    const { of, events, reads } = await indexed(async (e) => {
      await e.append('item-acme:post:p1', [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: null })], 'no_stream');
    });
    await reads.commit([], { projection: itemHistoryProjection.name, from: await reads.checkpoint(itemHistoryProjection.name), to: 0 });
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    expect(await of('post', 'p1')).toEqual(['ItemSubmitted']);
  });

  it('marks the events of the child-safety queue and what they cause; a job of another queue stays its own', async () => {
    const p1 = { id: 'p1', typeId: 'post' };
    const u1 = { id: 'u1', typeId: 'user' };
    const reporter = { kind: 'user', id: 'r1', typeId: 'user' };
    const csReport = anEvent('ReportSubmitted', { reportedItem: p1, reporter, csam: true });
    const csDecision = anEvent('ReviewJobDecided', { jobId: 'cs', type: 'CUSTOM_ACTION' });
    const csAction = anEvent('ActionCallbackRequested', { deliveryId: 'd-cs', item: p1, creator: u1, trigger: 'decision' });
    const csStrike = causedBy(csAction, anEvent('UserStrikesApplied', { item: p1 }));
    const threshold = causedBy(csAction, anEvent('ActionCallbackRequested', { deliveryId: 'd-threshold', item: u1, creator: u1, trigger: 'strike-threshold' }));
    const ruleAction = anEvent('ActionCallbackRequested', { deliveryId: 'd-rule', item: p1, creator: u1, trigger: 'rule' });
    const { flagged } = await indexed(async (events) => {
      const submitted = anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: u1 });
      await events.append('item-acme:post:p1', [submitted], 'no_stream');
      await events.append(
        'item_evaluation-acme:post:p1:0:LIVE',
        [causedBy(submitted, anEvent('ItemEvaluated', { item: p1 })), causedBy(submitted, ruleAction)],
        'no_stream',
      );
      await events.append('report-acme:r1', [csReport], 'no_stream');
      await events.append('report_routing-acme:r1', [causedBy(csReport, anEvent('ReportRouted', { item: p1, queueId: 'child-safety' }))], 'no_stream');
      await events.append('review_job-acme:cs', [anEvent('ReviewJobOpened', { jobId: 'cs', queueId: 'child-safety', item: p1 })], 'no_stream');
      await events.append('review_job-acme:cs', [anEvent('ReviewJobClaimed', { jobId: 'cs' }), csDecision, csAction], 0);
      // What the decision's action caused: the strike, a threshold it crossed, their deliveries and their attempts.
      await events.append(
        'user_strikes-acme:user:u1',
        [causedBy(ruleAction, anEvent('UserStrikesApplied', { item: p1 })), csStrike, causedBy(csAction, anEvent('UserStrikeThresholdCrossed', {})), threshold],
        'no_stream',
      );
      await events.append('callback_delivery-acme:d-cs', [causedBy(csAction, anEvent('CallbackDeliveryRequested', { item: p1 }))], 'no_stream');
      await events.append('callback_delivery-acme:d-cs', [anEvent('CallbackDelivered', {})], 0);
      await events.append('callback_delivery-acme:d-threshold', [causedBy(threshold, anEvent('CallbackDeliveryRequested', { item: u1 }))], 'no_stream');
      await events.append('callback_delivery-acme:d-rule', [causedBy(ruleAction, anEvent('CallbackDeliveryRequested', { item: p1 }))], 'no_stream');
      await events.append('callback_delivery-acme:d-rule', [anEvent('CallbackDelivered', {})], 0);
      // A report of the default queue; its job closed because the child-safety decision actioned the item.
      await events.append('report-acme:r2', [anEvent('ReportSubmitted', { reportedItem: p1, reporter, csam: false })], 'no_stream');
      await events.append('review_job-acme:j2', [anEvent('ReviewJobOpened', { jobId: 'j2', queueId: 'default', item: p1 })], 'no_stream');
      await events.append('review_job-acme:j2', [causedBy(csDecision, anEvent('ReviewJobDecided', { jobId: 'j2', type: 'AUTOMATIC_CLOSE' }))], 0);
      // A rule's request sent to the child-safety queue, beside the rule's other actions.
      await events.append(
        'item_evaluation-acme:post:p1:0:LIVE',
        [causedBy(submitted, anEvent('ReviewEnqueueRequested', { item: p1, queueId: 'child-safety' }))],
        1,
      );
    });
    expect(await flagged('post', 'p1')).toEqual([
      'ItemSubmitted',
      'ItemEvaluated',
      'ActionCallbackRequested',
      'ReportSubmitted!',
      'ReportRouted!',
      'ReviewJobOpened!',
      'ReviewJobClaimed!',
      'ReviewJobDecided!',
      'ActionCallbackRequested!',
      'UserStrikesApplied',
      'UserStrikesApplied!',
      'CallbackDeliveryRequested!',
      'CallbackDelivered!',
      'CallbackDeliveryRequested',
      'CallbackDelivered',
      'ReportSubmitted',
      'ReviewJobOpened',
      'ReviewJobDecided',
      'ReviewEnqueueRequested!',
    ]);
    expect(await flagged('user', 'u1')).toEqual([
      'ItemSubmitted',
      'ActionCallbackRequested',
      'ActionCallbackRequested!',
      'UserStrikesApplied',
      'UserStrikesApplied!',
      'UserStrikeThresholdCrossed!',
      'ActionCallbackRequested!',
      'CallbackDeliveryRequested!',
      'ReviewEnqueueRequested!',
    ]);
  });
  it("marks a default job's decision that sends a child-safety report or moves the job there, what it requested, and a report a routing rule sent there", async () => {
    const p1 = { id: 'p1', typeId: 'post' };
    const u1 = { id: 'u1', typeId: 'user' };
    const submitCs = anEvent('ReviewJobDecided', { jobId: 'j1', type: 'SUBMIT_CHILD_SAFETY_REPORT', targetQueueId: null, deliveryIds: ['d-cs'] });
    const csAction = anEvent('ActionCallbackRequested', { deliveryId: 'd-cs', item: p1, creator: u1, trigger: 'decision' });
    const moveCs = anEvent('ReviewJobDecided', {
      jobId: 'j2',
      type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE',
      targetQueueId: 'child-safety',
      deliveryIds: ['d-move'],
    });
    const moveAction = anEvent('ActionCallbackRequested', { deliveryId: 'd-move', item: p1, creator: u1, trigger: 'decision' });
    const plain = anEvent('ReviewJobDecided', { jobId: 'j3', type: 'CUSTOM_ACTION', targetQueueId: null, deliveryIds: ['d-plain'] });
    const plainAction = anEvent('ActionCallbackRequested', { deliveryId: 'd-plain', item: p1, creator: u1, trigger: 'decision' });
    const { flagged } = await indexed(async (events) => {
      for (const [job, decision, action] of [
        ['j1', submitCs, csAction],
        ['j2', moveCs, moveAction],
        ['j3', plain, plainAction],
      ] as const) {
        await events.append(`review_job-acme:${job}`, [anEvent('ReviewJobOpened', { jobId: job, queueId: 'default', item: p1 })], 'no_stream');
        await events.append(`review_job-acme:${job}`, [decision, action], 0);
        await events.append(
          `callback_delivery-acme:${action.data['deliveryId'] as string}`,
          [causedBy(action, anEvent('CallbackDeliveryRequested', { item: p1 }))],
          'no_stream',
        );
      }
      // A plain report a routing rule sent to child-safety: marked once its route is known.
      const routed = anEvent('ReportSubmitted', { reportId: 'r3', reportedItem: p1, reporter: { kind: 'user', id: 'r3', typeId: 'user' }, csam: false });
      await events.append('report-acme:r3', [routed], 'no_stream');
      await events.append(
        'report_routing-acme:r3',
        [causedBy(routed, anEvent('ReportRouted', { reportId: 'r3', item: p1, queueId: 'child-safety' }))],
        'no_stream',
      );
    });
    expect(await flagged('user', 'r3')).toEqual(['ReportSubmitted!']);
    // The jobs sent to child-safety are that queue's as a whole: their openings are marked too.
    expect(await flagged('post', 'p1')).toEqual([
      'ReviewJobOpened!',
      'ReviewJobDecided!',
      'ActionCallbackRequested!',
      'CallbackDeliveryRequested!',
      'ReviewJobOpened!',
      'ReviewJobDecided!',
      'ActionCallbackRequested!',
      'CallbackDeliveryRequested!',
      'ReviewJobOpened',
      'ReviewJobDecided',
      'ActionCallbackRequested',
      'CallbackDeliveryRequested',
      'ReportSubmitted!',
      'ReportRouted!',
    ]);
  });

  it('marks the entries of a report routed to child-safety when a commit landed its stream record marked but not its entries', async () => {
    const p1 = { id: 'p1', typeId: 'post' };
    const { events, reads } = freshStores();
    const routed = anEvent('ReportSubmitted', { reportId: 'r3', reportedItem: p1, reporter: { kind: 'user', id: 'r3', typeId: 'user' }, csam: false });
    await events.append('report-acme:r3', [routed], 'no_stream');
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    // The routing's batch: its commit lands the report's stream record, marked, and not its entries.
    await events.append(
      'report_routing-acme:r3',
      [causedBy(routed, anEvent('ReportRouted', { reportId: 'r3', item: p1, queueId: 'child-safety' }))],
      'no_stream',
    );
    await expect(new ProjectionRunner(itemHistoryProjection, events, crashingPartway(reads, [ITEM_HISTORY_STREAMS])).catchUp()).rejects.toThrow();
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    const entries = await reads.find<ItemHistoryDoc & Record<string, never>>(ITEM_HISTORY, { orgId: 'acme', typeId: 'user', itemId: 'r3' });
    expect(entries.map((d) => (d.childSafety === true ? `${d.type}!` : d.type))).toEqual(['ReportSubmitted!']);
  });

  it("marks the item version a csam report recorded, under the item and its creator; a plain report's stays unmarked", async () => {
    const u1 = { id: 'u1', typeId: 'user' };
    const { flagged } = await indexed(async (events) => {
      for (const [revision, csam] of [
        [0, false],
        [1, true],
      ] as const) {
        await events.append(
          'item-acme:post:p1',
          [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: u1, source: 'report' })],
          revision === 0 ? 'no_stream' : 0,
        );
        await events.append(
          `report-acme:r${revision}`,
          [anEvent('ReportSubmitted', { reportId: `r${revision}`, reportedItem: { id: 'p1', typeId: 'post', version: revision }, csam })],
          'no_stream',
        );
      }
      // A version sent to the items endpoint is never a report's.
      await events.append('item-acme:post:p1', [anEvent('ItemSubmitted', { itemId: 'p1', typeId: 'post', creator: u1, source: 'items' })], 1);
    });
    expect(await flagged('post', 'p1')).toEqual(['ItemSubmitted', 'ReportSubmitted', 'ItemSubmitted!', 'ReportSubmitted!', 'ItemSubmitted']);
    expect(await flagged('user', 'u1')).toEqual(['ItemSubmitted', 'ItemSubmitted!', 'ItemSubmitted']);
  });

  it('marks a default job a decision sent to child-safety as a whole: its opening, its claim and what comes after', async () => {
    const p1 = { id: 'p1', typeId: 'post' };
    const { flagged } = await indexed(async (events) => {
      await events.append('review_job-acme:j1', [anEvent('ReviewJobOpened', { jobId: 'j1', queueId: 'default', item: p1 })], 'no_stream');
      await events.append('review_job-acme:j1', [anEvent('ReviewJobClaimed', { jobId: 'j1' })], 0);
      await events.append('review_job-acme:j1', [anEvent('ReviewJobDecided', { jobId: 'j1', type: 'SUBMIT_CHILD_SAFETY_REPORT', deliveryIds: [] })], 1);
      await events.append('review_job-acme:j1', [anEvent('ReviewJobReleased', { jobId: 'j1' })], 2);
    });
    // The claim, written before the decision, is left out when read (the reader asks the job's record).
    expect(await flagged('post', 'p1')).toEqual(['ReviewJobOpened!', 'ReviewJobClaimed', 'ReviewJobDecided!', 'ReviewJobReleased!']);
  });

  it("marks the opening of a job sent to child-safety when a commit landed the job's record marked but not its entries", async () => {
    const p1 = { id: 'p1', typeId: 'post' };
    const { events, reads } = freshStores();
    await events.append('review_job-acme:j1', [anEvent('ReviewJobOpened', { jobId: 'j1', queueId: 'default', item: p1 })], 'no_stream');
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    await events.append('review_job-acme:j1', [anEvent('ReviewJobDecided', { jobId: 'j1', type: 'SUBMIT_CHILD_SAFETY_REPORT', deliveryIds: [] })], 0);
    await expect(new ProjectionRunner(itemHistoryProjection, events, crashingPartway(reads, [ITEM_HISTORY_STREAMS])).catchUp()).rejects.toThrow();
    await new ProjectionRunner(itemHistoryProjection, events, reads).catchUp();
    const entries = await reads.find<ItemHistoryDoc & Record<string, never>>(
      ITEM_HISTORY,
      { orgId: 'acme', typeId: 'post', itemId: 'p1' },
      { sort: [{ field: 'position', direction: 'asc' }] },
    );
    expect(entries.map((d) => (d.childSafety === true ? `${d.type}!` : d.type))).toEqual(['ReviewJobOpened!', 'ReviewJobDecided!']);
  });
});
