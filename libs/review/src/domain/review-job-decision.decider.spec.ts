import type { DecisionActionCallback } from '#warden/callbacks/contracts';
import { describe, expect, it } from 'vitest';
import { ruleRequest } from '../../../../test/support/review-events.js';
import { deciderSpecification, DomainError } from '#warden/kernel';
import { reviewJobDecider, type ReviewJobCommand } from './review-job.decider.js';
import type { ReviewJobEvent } from './review-job.events.js';

/** The Decide and AutoClose commands of the review job decider: given events, when a command, then events. */
const spec = deciderSpecification(reviewJobDecider);

const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const request = ruleRequest('r1', { at: '2026-01-01T00:00:00.000Z' });
const opened: ReviewJobEvent = {
  type: 'ReviewJobOpened',
  data: { jobId: 'j1', queueId: 'default', generation: 0, item, request, carried: [], openedAt: '2026-01-01T00:00:00.000Z', reasons: {}, subject: null },
};
const claimed: ReviewJobEvent = {
  type: 'ReviewJobClaimed',
  data: { jobId: 'j1', moderatorId: 'm1', lockTokenHash: 'h1', claimedAt: '2026-01-01T00:01:00.000Z', expiresAt: '2026-01-01T00:11:00.000Z' },
};
const callback: DecisionActionCallback = {
  deliveryId: 'd1',
  item,
  action: { id: 'remove' },
  policies: [],
  rules: [],
  custom: {},
  creator: null,
  environment: 'MANUAL',
  trigger: 'decision',
  actor: { userId: 'm1', email: 'm1@example.com' },
  actorNote: null,
  parameters: {},
  decisionReason: null,
  decidedOn: { version: 0, contentDigest: 'digest-of-version-0' },
  reportHistory: null,
  subject: 'post:p1',
};
const decide = (over: Partial<Extract<ReviewJobCommand, { type: 'Decide' }>> = {}): ReviewJobCommand => ({
  type: 'Decide',
  moderatorId: 'm1',
  lockTokenHash: 'h1',
  decision: {
    decisionId: 'dec1',
    type: 'CUSTOM_ACTION',
    actor: { userId: 'm1' },
    actionIds: ['remove'],
    policies: [],
    reason: 'spam',
    note: null,
    parameters: {},
    targetQueueId: null,
    deliveryIds: ['d1'],
  },
  callbacks: [callback],
  childSafetyReport: null,
  now: '2026-01-01T00:05:00.000Z',
  ...over,
});

describe('reviewJobDecider: decisions', () => {
  it('with the live lock: the decision and its callbacks, in one append', () => {
    const events = spec.given([opened, claimed]).when(decide()).events();
    expect(events.map((e) => e.type)).toEqual(['ReviewJobDecided', 'ActionCallbackRequested']);
    expect(events[0]!.data).toMatchObject({ jobId: 'j1', decisionId: 'dec1', closeReason: null, decidedAt: '2026-01-01T00:05:00.000Z' });
    expect(events[1]!.data).toEqual(callback);
  });

  it('the decision closes the job: a second one is job-closed', () => {
    const [decided] = spec.given([opened, claimed]).when(decide()).events();
    expect(spec.given([opened, claimed, decided!]).when(decide()).thenThrows(DomainError).kind).toBe('job-closed');
  });

  it('without the lock, with another token, or after it expired: refused', () => {
    expect(spec.given([opened]).when(decide()).thenThrows(DomainError).kind).toBe('lock-not-held');
    expect(
      spec
        .given([opened, claimed])
        .when(decide({ lockTokenHash: 'other' }))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given([opened, claimed])
        .when(decide({ moderatorId: 'm2' }))
        .thenThrows(DomainError).kind,
    ).toBe('lock-not-held');
    expect(
      spec
        .given([opened, claimed])
        .when(decide({ now: '2026-01-01T00:11:00.000Z' }))
        .thenThrows(DomainError).kind,
    ).toBe('lock-expired');
  });

  it('records what was decided on: the decision and its callbacks name the item version and its content digest', () => {
    const seen = { version: 0, contentDigest: 'digest-of-version-0' };
    const events = spec
      .given([opened, claimed])
      .when(decide({ decision: { ...(decide() as Extract<ReviewJobCommand, { type: 'Decide' }>).decision, item: seen } }))
      .events();
    expect(events[0]!.data).toMatchObject({ item: seen });
    expect(events[1]!.data).toMatchObject({ decidedOn: seen });
  });

  it('a claim records the version it showed, and the lock keeps it for the decision', () => {
    const seen = { version: 3, contentDigest: 'digest-of-version-3' };
    const [claim] = spec
      .given([opened])
      .when({ type: 'Claim', moderatorId: 'm1', lockTokenHash: 'h1', expiresAt: '2026-01-01T00:11:00.000Z', now: '2026-01-01T00:01:00.000Z', item: seen })
      .events();
    expect(claim).toMatchObject({ type: 'ReviewJobClaimed', data: { item: seen } });
    const state = [opened, claim!].reduce(reviewJobDecider.evolve, reviewJobDecider.initialState);
    expect(state.lock?.item).toEqual(seen);
    // A claim recorded before claims recorded it leaves the lock without one.
    expect([opened, claimed].reduce(reviewJobDecider.evolve, reviewJobDecider.initialState).lock?.item).toBeNull();
  });

  it('AutoClose closes an open job without a lock, and leaves a closed one alone', () => {
    const [closed] = spec
      .given([opened, claimed])
      .when({ type: 'AutoClose', decisionId: 'auto1', closeReason: 'ITEM_ACTIONED', now: '2026-01-01T00:06:00.000Z' })
      .events();
    expect(closed).toMatchObject({
      type: 'ReviewJobDecided',
      data: { type: 'AUTOMATIC_CLOSE', actor: null, closeReason: 'ITEM_ACTIONED', decisionId: 'auto1', item: null },
    });
    spec.given([opened, closed!]).when({ type: 'AutoClose', decisionId: 'auto2', closeReason: 'EXPIRED', now: '2026-01-02T00:00:00.000Z' }).thenNothing();
    spec.given([]).when({ type: 'AutoClose', decisionId: 'auto3', closeReason: 'EXPIRED', now: '2026-01-02T00:00:00.000Z' }).thenNothing();
  });
});
