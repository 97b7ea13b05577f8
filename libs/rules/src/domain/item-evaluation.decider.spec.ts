import { describe, expect, it } from 'vitest';
import { foldEvents, streamName } from '#warden/kernel';
import { encodeEvaluation, type Evaluation, type EvaluationEvent, type PublishedAction } from './evaluation.events.js';
import { evaluationEventId, itemEvaluationDecider, type RecordEvaluation } from './item-evaluation.decider.js';

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

const record = (actions: PublishedAction[], overrides: Partial<RecordEvaluation> = {}): RecordEvaluation => ({
  type: 'RecordEvaluation',
  streamName: STREAM,
  evaluation: evaluation(actions),
  creator: { id: 'u1', typeId: 'user' },
  actions: new Map([['notify', { body: { severity: 'high' } }]]),
  ...overrides,
});

/** Given events, when a command, then the events it decides. */
function given(events: EvaluationEvent[]) {
  const state = foldEvents(itemEvaluationDecider, events);
  return { state, when: (command: RecordEvaluation) => itemEvaluationDecider.decide(command, state) };
}

describe('item evaluation decider', () => {
  it('records an evaluation that published nothing as ItemEvaluated alone, in its stored form', () => {
    const command = record([]);
    expect(given([]).when(command)).toEqual([{ type: 'ItemEvaluated', data: encodeEvaluation(command.evaluation) }]);
  });

  it('publishes a callback per customer-defined action and a review request per queue action, with ids derived from the stream', () => {
    const events = given([]).when(record([notify, review, childSafety]));
    expect(events.map((e) => e.type)).toEqual(['ItemEvaluated', 'ActionCallbackRequested', 'ReviewEnqueueRequested', 'ReviewEnqueueRequested']);
    const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
    // Customers see these ids: they stay byte-identical to those recorded from the first release.
    expect(events[1]).toEqual({
      type: 'ActionCallbackRequested',
      data: {
        deliveryId: '6156f992-7066-8ccb-8b60-3ab6f38be8f2',
        item,
        action: { id: 'notify' },
        policies,
        rules,
        custom: { severity: 'high' },
        creator: { id: 'u1', typeId: 'user' },
        environment: 'LIVE',
      },
    });
    expect(events[2]).toEqual({
      type: 'ReviewEnqueueRequested',
      data: {
        jobId: '650b1f2b-bbf4-8499-b1d5-db0c446503a8',
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
    expect(events[3]!.data).toMatchObject({ jobId: '13433569-b1bd-82b0-b4c4-37bf30e1f5ae', queueId: 'child-safety', policies: [] });
  });

  it('writes the publications with their fields in the recorded order', () => {
    const [, callback, job] = given([]).when(record([notify, review]));
    expect(Object.keys(callback!.data)).toEqual(['deliveryId', 'item', 'action', 'policies', 'rules', 'custom', 'creator', 'environment']);
    expect(Object.keys(job!.data)).toEqual(['jobId', 'item', 'version', 'queueId', 'source', 'actionId', 'policies', 'rules', 'environment']);
  });

  it('publishes in the environment evaluated, and with another stream (a retroaction run) other ids', () => {
    const retroStream = streamName('item_evaluation', 'acme', 'post', 'p1', '3', 'RETROACTION:r1');
    const [, callback] = given([]).when(record([notify], { streamName: retroStream, evaluation: evaluation([notify], 'RETROACTION') }));
    expect(callback!.data).toMatchObject({ environment: 'RETROACTION' });
    expect((callback!.data as { deliveryId: string }).deliveryId).not.toBe('6156f992-7066-8ccb-8b60-3ab6f38be8f2');
  });

  it('sends an empty custom body for an action the catalog no longer has, never a shared object', () => {
    const body = { severity: 'high' };
    const [, gone] = given([]).when(record([notify], { actions: new Map(), creator: null }));
    expect(gone!.data).toMatchObject({ custom: {}, creator: null });
    const [, kept] = given([]).when(record([notify], { actions: new Map([['notify', { body }]]) }));
    expect((kept!.data as { custom: object }).custom).not.toBe(body);
  });

  it('records an evaluation once: recording it again decides nothing', () => {
    const recorded = given([]).when(record([notify, review]));
    expect(given(recorded).state).toEqual({ recorded: true });
    expect(given(recorded).when(record([notify, review]))).toEqual([]);
    expect(given(recorded.slice(0, 1)).when(record([]))).toEqual([]);
  });

  it('derives the events’ own ids from the stream and their place in it', () => {
    expect([0, 1, 2].map((i) => evaluationEventId(STREAM, i))).toEqual([
      'a6623625-aee1-8d39-94eb-5b61bf46bd42',
      '73625ec8-ae29-8d82-9143-1120b194fcd1',
      'e9502e44-6dc1-8f9c-a3d3-4f78fab1ecb0',
    ]);
  });
});
