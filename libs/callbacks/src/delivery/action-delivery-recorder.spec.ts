import type { QueryBus } from '@nestjs/cqrs';
import { describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import type { JsonObject, RecordedEvent } from '#warden/kernel';
import type { DecisionActionCallback, ExecutionActionCallback } from '../domain/action-callback.events.js';
import { ActionDeliveryRecorder } from './action-delivery-recorder.js';
import type { DeliveryRequest, DeliveryRequests } from './delivery-requests.js';

/** An executed action's callback request (trigger post-actions), as enforcement publishes it. */
const execution = (extra: Partial<ExecutionActionCallback> = {}): ExecutionActionCallback => ({
  deliveryId: 'd1',
  item: { id: 'p1', typeId: 'post', typeName: 'Post' },
  action: { id: 'remove' },
  policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
  rules: [],
  custom: { severity: 'high' },
  creator: { id: 'u1', typeId: 'user' },
  environment: 'MANUAL',
  trigger: 'post-actions',
  ...extra,
});

/** What the recorder asks DeliveryRequests to record for `data` (no destination configured). */
async function recorded(data: ExecutionActionCallback | DecisionActionCallback): Promise<DeliveryRequest> {
  const requests: DeliveryRequest[] = [];
  const deliveries = { request: (request: DeliveryRequest) => (requests.push(request), Promise.resolve(true)) } as unknown as DeliveryRequests;
  const queries = { execute: () => Promise.resolve([]) } as unknown as QueryBus;
  const event: RecordedEvent = {
    ...anEvent('ActionCallbackRequested', data as unknown as JsonObject),
    streamName: 'action_execution-acme:exe_1',
    revision: 1,
    position: 7,
  };
  await new ActionDeliveryRecorder(deliveries, queries).record(event, 2);
  return requests[0]!;
}

describe('action delivery recorder: an executed action (trigger post-actions)', () => {
  it("of a bulk action: the body names the manager (actorEmail) and the reason (decisionReason), sealed under the manager's key", async () => {
    const request = await recorded(execution({ actor: { userId: 'usr_1', email: 'lead@acme.example' }, decisionReason: 'spam campaign' }));
    expect(request).toMatchObject({ trigger: 'post-actions', subject: null, actorUserId: 'usr_1' });
    expect(request.body).toEqual({
      item: { id: 'p1', typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      rules: [],
      custom: { severity: 'high' },
      actorEmail: 'lead@acme.example',
      creator: { id: 'u1', typeId: 'user' },
      decisionReason: 'spam campaign',
      userStrikeCount: 2,
    });
  });

  it("of a bulk action whose manager's console account was erased: no actorEmail, no key of theirs; the reason stays", async () => {
    const request = await recorded(execution({ actor: { userId: 'usr_1', email: null }, decisionReason: 'spam campaign' }));
    expect(request).not.toHaveProperty('actorUserId');
    expect(request.body).not.toHaveProperty('actorEmail');
    expect(request.body).toMatchObject({ decisionReason: 'spam campaign' });
  });

  it('of POST /api/v1/actions: no actor fields, no console user', async () => {
    const request = await recorded(execution());
    expect(request).not.toHaveProperty('actorUserId');
    expect(request.body).not.toHaveProperty('actorEmail');
    expect(request.body).not.toHaveProperty('decisionReason');
    expect(request.body).toMatchObject({ rules: [], custom: { severity: 'high' } });
  });
});

describe("action delivery recorder: a moderator's decision (trigger decision)", () => {
  const decision = (actor: DecisionActionCallback['actor']): DecisionActionCallback => ({
    deliveryId: 'd2',
    item: { id: 'p1', typeId: 'post', typeName: 'Post' },
    action: { id: 'remove' },
    custom: {},
    creator: null,
    trigger: 'decision',
    environment: 'MANUAL',
    policies: [],
    rules: [],
    ...(actor ? { actor } : {}),
    actorNote: null,
    parameters: {},
    decisionReason: 'spam',
    reportHistory: null,
    subject: null,
  });

  it("names the moderator (actorEmail), sealed under their console user's key", async () => {
    const request = await recorded(decision({ userId: 'usr_2', email: 'mod@acme.example' }));
    expect(request).toMatchObject({ trigger: 'decision', actorUserId: 'usr_2' });
    expect(request.body).toMatchObject({ actorEmail: 'mod@acme.example', decisionReason: 'spam' });
  });

  it("leaves actorEmail out, not empty, when the moderator's console account was erased before the delivery was recorded", async () => {
    const request = await recorded(decision({ userId: 'usr_2', email: null }));
    expect(request.body).not.toHaveProperty('actorEmail');
    expect(request).not.toHaveProperty('actorUserId');
    expect(request.body).toMatchObject({ decisionReason: 'spam' });
  });
});
