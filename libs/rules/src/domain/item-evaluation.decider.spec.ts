import { describe, expect, it } from 'vitest';
import { deciderSpecification, streamName } from '#warden/kernel';
import { decodeEvaluation, encodeEvaluation, type Evaluation, type PublishedAction } from './evaluation.events.js';
import { evaluationEventId, itemEvaluationDecider, type RecordEvaluation } from './item-evaluation.decider.js';
import { contentKey, itemContentDigest } from './item-content.js';

const STREAM = streamName('item_evaluation', 'acme', 'post', 'p1', '3', 'LIVE');
const policies = [{ id: 'spam', name: 'Spam', penalty: 'LOW' as const }];
const rules = [{ id: 'r1', name: 'Rule 1' }];
const notify: PublishedAction = { id: 'notify', kind: 'CUSTOMER_DEFINED_ACTION', policies, rules };
const review: PublishedAction = { id: 'enqueue-to-mrt', kind: 'ENQUEUE_TO_MRT', policies, rules };
const childSafety: PublishedAction = { id: 'enqueue-to-child-safety', kind: 'ENQUEUE_TO_CHILD_SAFETY', policies: [], rules };

const evaluation = (actions: PublishedAction[], environment: Evaluation['environment'] = 'LIVE'): Evaluation => ({
  item: { id: 'p1', typeId: 'post', typeName: 'Post' },
  version: 3,
  environment,
  subject: 'user:u1',
  rules: [{ id: 'r1', name: 'Rule 1', status: 'LIVE', outcome: 'passed', capped: false, conditions: [{ path: '', outcome: 'passed' }] }],
  actions,
});

const DATA = { text: 'buy now', author: { id: 'u1', typeId: 'user' } };
const CREATOR = { id: 'u1', typeId: 'user' };
/** The content key of `data` by `creator`, its content begun at version 3. */
const keyOf = (data: object = DATA, creator: { id: string; typeId: string } | null = CREATOR, since = 3) =>
  contentKey(itemContentDigest({ data: data as Record<string, unknown>, creator }), since);

const record = (actions: PublishedAction[], overrides: Partial<RecordEvaluation> = {}): RecordEvaluation => ({
  type: 'RecordEvaluation',
  orgId: 'acme',
  run: 'LIVE',
  content: keyOf(),
  evaluation: evaluation(actions),
  creator: { id: 'u1', typeId: 'user' },
  actions: new Map([['notify', { body: { severity: 'high' } }]]),
  ...overrides,
});

/** The delivery and review job ids a record publishes, in order. */
const idsOf = (command: RecordEvaluation) =>
  itemEvaluationDecider
    .decide(command, itemEvaluationDecider.initialState)
    .slice(1)
    .map((e) => {
      const data = e.data as { deliveryId?: string; jobId?: string };
      return data.deliveryId ?? data.jobId;
    });

const spec = deciderSpecification(itemEvaluationDecider);

describe('item evaluation decider', () => {
  it('records an evaluation that published nothing as ItemEvaluated alone, in its stored form, with the content key the next version starts from', () => {
    const command = record([]);
    spec
      .given([])
      .when({ ...command, chainedContent: keyOf() })
      .then([{ type: 'ItemEvaluated', data: { ...encodeEvaluation(command.evaluation), content: keyOf() } }]);
    // Without one (a retroaction's run, a fetched whole item, a first version with no action), none recorded.
    spec
      .given([])
      .when(command)
      .then([{ type: 'ItemEvaluated', data: encodeEvaluation(command.evaluation) }]);
    // The key is the record's, not the evaluation's: decoding leaves it out.
    expect(decodeEvaluation({ ...encodeEvaluation(command.evaluation), content: keyOf() })).toEqual(decodeEvaluation(encodeEvaluation(command.evaluation)));
  });

  it('publishes a callback per customer-defined action and a review request per queue action, with ids derived from the content', () => {
    const events = spec
      .given([])
      .when(record([notify, review, childSafety]))
      .events();
    expect(events.map((e) => e.type)).toEqual(['ItemEvaluated', 'ActionCallbackRequested', 'ReviewEnqueueRequested', 'ReviewEnqueueRequested']);
    const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
    // Customers see these ids: they stay byte-identical for the same content from now on (those
    // derived from the version before stay in the log as they were).
    expect(events[1]).toEqual({
      type: 'ActionCallbackRequested',
      data: {
        deliveryId: 'a7b3820b-264c-80d3-ab32-9642d1e3a874',
        item,
        action: { id: 'notify' },
        policies,
        rules,
        custom: { severity: 'high' },
        creator: { id: 'u1', typeId: 'user' },
        environment: 'LIVE',
        // The content acted on: enforcement strikes once per content.
        content: keyOf(DATA, CREATOR, 3),
      },
    });
    expect(events[2]).toEqual({
      type: 'ReviewEnqueueRequested',
      data: {
        jobId: '5b31ab04-c675-8e30-a833-8ccb8a557c44',
        item,
        version: 3,
        queueId: 'default',
        source: 'RULE_EXECUTION',
        actionId: 'enqueue-to-mrt',
        policies,
        rules,
        environment: 'LIVE',
      },
    });
    expect(events[3]!.data).toMatchObject({ jobId: 'dd5796d7-9623-82ac-8def-320338d91793', queueId: 'child-safety', policies: [] });
  });

  it('writes the publications with their fields in the recorded order', () => {
    const [, callback, job] = spec
      .given([])
      .when(record([notify, review]))
      .events();
    expect(Object.keys(callback!.data)).toEqual(['deliveryId', 'item', 'action', 'policies', 'rules', 'custom', 'creator', 'environment', 'content']);
    expect(Object.keys(job!.data)).toEqual(['jobId', 'item', 'version', 'queueId', 'source', 'actionId', 'policies', 'rules', 'environment']);
  });

  it('publishes in the environment evaluated, and in another run (a retroaction) with other ids', () => {
    const [, callback] = spec
      .given([])
      .when(record([notify], { run: 'RETROACTION:r1', evaluation: evaluation([notify], 'RETROACTION') }))
      .events();
    expect(callback!.data).toMatchObject({ environment: 'RETROACTION' });
    expect(idsOf(record([notify, review], { run: 'RETROACTION:r1' }))).not.toEqual(idsOf(record([notify, review])));
  });

  it('publishes the same ids for the latest content re-submitted in another version: a retry acts once', () => {
    const first = idsOf(record([notify, review]));
    const retried = { ...evaluation([notify, review]), version: 4 };
    // The same data, its keys in another order (as another client library may write them), in the
    // run of identical content that began at version 3.
    const reordered = { author: { typeId: 'user', id: 'u1' }, text: 'buy now' };
    expect(idsOf(record([notify, review], { evaluation: retried, content: keyOf(reordered) }))).toEqual(first);
  });

  it('publishes new ids for content that came back after an edit (A, B, A): it acts again', () => {
    const first = idsOf(record([notify, review]));
    const back = { ...evaluation([notify, review]), version: 5 };
    const again = idsOf(record([notify, review], { evaluation: back, content: keyOf(DATA, CREATOR, 5) }));
    expect(again[0]).not.toBe(first[0]);
    expect(again[1]).not.toBe(first[1]);
  });

  it('publishes new ids when the content changed: edited data or another creator acts again', () => {
    const first = idsOf(record([notify, review]));
    const edited = idsOf(record([notify, review], { content: keyOf({ ...DATA, text: 'buy now!' }) }));
    const otherCreator = idsOf(record([notify, review], { content: keyOf(DATA, { id: 'u2', typeId: 'user' }) }));
    for (const ids of [edited, otherCreator]) {
      expect(ids[0]).not.toBe(first[0]);
      expect(ids[1]).not.toBe(first[1]);
    }
  });

  it('keeps items, organizations and actions apart', () => {
    const first = idsOf(record([notify]));
    const otherItem = { ...evaluation([notify]), item: { id: 'p2', typeId: 'post', typeName: 'Post' } };
    expect(idsOf(record([notify], { evaluation: otherItem }))).not.toEqual(first);
    expect(idsOf(record([notify], { orgId: 'globex' }))).not.toEqual(first);
    const other: PublishedAction = { ...notify, id: 'notify-2' };
    expect(idsOf(record([other]))).not.toEqual(first);
  });

  it('sends an empty custom body for an action the catalog no longer has, never a shared object', () => {
    const body = { severity: 'high' };
    const [, gone] = spec
      .given([])
      .when(record([notify], { actions: new Map(), creator: null }))
      .events();
    expect(gone!.data).toMatchObject({ custom: {}, creator: null });
    const [, kept] = spec
      .given([])
      .when(record([notify], { actions: new Map([['notify', { body }]]) }))
      .events();
    expect((kept!.data as { custom: object }).custom).not.toBe(body);
  });

  it('records an evaluation once: recording it again decides nothing', () => {
    const recorded = spec
      .given([])
      .when(record([notify, review]))
      .events();
    expect(spec.given(recorded).state).toEqual({ recorded: true });
    spec
      .given(recorded)
      .when(record([notify, review]))
      .thenNothing();
    spec.given(recorded.slice(0, 1)).when(record([])).thenNothing();
  });

  it('derives the events’ own ids from the stream and their place in it', () => {
    expect([0, 1, 2].map((i) => evaluationEventId(STREAM, i))).toEqual([
      'a6623625-aee1-8d39-94eb-5b61bf46bd42',
      '73625ec8-ae29-8d82-9143-1120b194fcd1',
      'e9502e44-6dc1-8f9c-a3d3-4f78fab1ecb0',
    ]);
  });
});
