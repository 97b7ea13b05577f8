import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { actionExecutionDecider, type ExecuteAction, executionDeliveryId, executionReviewRequestId } from './action-execution.decider.js';

const spec = deciderSpecification(actionExecutionDecider);

const execute = (overrides: Partial<ExecuteAction> = {}): ExecuteAction => ({
  type: 'ExecuteAction',
  orgId: 'acme',
  executionId: 'exe_1',
  action: { id: 'remove', kind: 'CUSTOMER_DEFINED_ACTION', body: { severity: 'high' } },
  item: { id: 'post-1', typeId: 'post', typeName: 'Post' },
  version: 2,
  policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
  reportedItems: [
    { id: 'post-1', typeId: 'post' },
    { id: 'post-0', typeId: 'post' },
  ],
  creator: { id: 'u1', typeId: 'user' },
  actorId: 'staff-17',
  now: '2026-03-01T12:00:00.000Z',
  ...overrides,
});

const executed = (overrides: Partial<ExecuteAction> = {}) => {
  const c = execute(overrides);
  return {
    type: 'ActionExecuted' as const,
    data: {
      executionId: c.executionId,
      action: { id: c.action.id, kind: c.action.kind },
      item: c.item,
      version: c.version,
      policies: [...c.policies],
      reportedItems: [...c.reportedItems],
      creator: c.creator,
      actorId: c.actorId,
      executedAt: c.now,
    },
  };
};

/** The callback request of `execute()`'s action (the policies given, no rules, trigger post-actions), with `extra` fields after. */
const callbackRequested = (extra: { actor?: { userId: string; email: string }; decisionReason?: string } = {}) => ({
  type: 'ActionCallbackRequested' as const,
  data: {
    deliveryId: executionDeliveryId('acme', 'exe_1'),
    item: { id: 'post-1', typeId: 'post', typeName: 'Post' },
    action: { id: 'remove' },
    policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' as const }],
    rules: [] as [],
    custom: { severity: 'high' },
    creator: { id: 'u1', typeId: 'user' },
    environment: 'MANUAL' as const,
    trigger: 'post-actions' as const,
    ...extra,
  },
});

describe('action execution decider', () => {
  it('records a customer-defined action with its callback: the policies given, no rules, the creator, trigger post-actions', () => {
    spec.given([]).when(execute()).then([executed(), callbackRequested()]);
  });

  it("a bulk action's execution: the callback names its manager (actor) and reason (decisionReason), not the ActionExecuted", () => {
    const moderator = { userId: 'usr_1', email: 'lead@acme.example', reason: 'spam campaign' };
    const [execution, callback] = spec.given([]).when(execute({ moderator })).events();
    expect(execution).toEqual(executed());
    expect(callback).toEqual(callbackRequested({ actor: { userId: 'usr_1', email: 'lead@acme.example' }, decisionReason: 'spam campaign' }));
  });

  it('without a moderator (POST /api/v1/actions) the callback has no actor and no decisionReason', () => {
    const [, callback] = spec.given([]).when(execute()).events();
    expect(callback!.data).not.toHaveProperty('actor');
    expect(callback!.data).not.toHaveProperty('decisionReason');
  });

  it('an unknown user: the callback has no creator (no strikes, no count)', () => {
    const [, callback] = spec
      .given([])
      .when(execute({ creator: null, actorId: null }))
      .events();
    expect(callback).toMatchObject({ type: 'ActionCallbackRequested', data: { creator: null } });
  });

  it('ENQUEUE_TO_MRT requests review of the item version in the default queue, source POST_ACTIONS; no callback', () => {
    const command = execute({ action: { id: 'enqueue-to-mrt', kind: 'ENQUEUE_TO_MRT', body: {} }, reportedItems: [] });
    spec
      .given([])
      .when(command)
      .then([
        executed({ action: command.action, reportedItems: [] }),
        {
          type: 'ReviewEnqueueRequested',
          data: {
            jobId: executionReviewRequestId('acme', 'exe_1'),
            item: { id: 'post-1', typeId: 'post', typeName: 'Post' },
            version: 2,
            queueId: 'default',
            source: 'POST_ACTIONS',
            actionId: 'enqueue-to-mrt',
            policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
            rules: [],
            environment: 'MANUAL',
          },
        },
      ]);
  });

  it('ENQUEUE_TO_CHILD_SAFETY requests the child-safety queue', () => {
    const events = spec
      .given([])
      .when(execute({ action: { id: 'enqueue-to-child-safety', kind: 'ENQUEUE_TO_CHILD_SAFETY', body: {} } }))
      .events();
    expect(events[1]).toMatchObject({ type: 'ReviewEnqueueRequested', data: { queueId: 'child-safety', source: 'POST_ACTIONS' } });
  });

  it('an execution already recorded decides nothing again (a re-run of the same command)', () => {
    const first = spec.given([]).when(execute()).events();
    spec.given(first).when(execute()).thenNothing();
  });

  it('two executions of the same request get different delivery ids (two callbacks, two strike applications)', () => {
    const a = spec
      .given([])
      .when(execute({ executionId: 'exe_1' }))
      .events()[1]!;
    const b = spec
      .given([])
      .when(execute({ executionId: 'exe_2' }))
      .events()[1]!;
    expect((a.data as { deliveryId: string }).deliveryId).not.toBe((b.data as { deliveryId: string }).deliveryId);
  });

  it('the action body is copied, not shared with the catalog', () => {
    const body = { severity: 'high' };
    const [, callback] = spec
      .given([])
      .when(execute({ action: { id: 'remove', kind: 'CUSTOMER_DEFINED_ACTION', body } }))
      .events();
    expect((callback!.data as { custom: object }).custom).not.toBe(body);
  });
});
