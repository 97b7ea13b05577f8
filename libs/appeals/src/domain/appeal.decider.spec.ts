import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { appealDecider } from './appeal.decider.js';
import type { AppealDecided, AppealEvent, AppealSubmitted } from './appeal.events.js';

const appeal: AppealSubmitted['data'] = {
  appealId: 'ap-1',
  appealedBy: { id: 'u1', typeId: 'user' },
  appealedAt: '2026-01-01T10:00:00Z',
  actionedItem: { id: 'p1', typeId: 'post' },
  actionedItemData: { text: 'hello' },
  actionsTaken: ['remove'],
  appealReason: 'it was a joke',
  violatingPolicyIds: ['spam'],
  additionalItems: [],
  subject: 'user:u1',
};

const spec = deciderSpecification(appealDecider);

describe('appeal decider', () => {
  it('records a new appeal as it was checked', () => {
    spec
      .given([])
      .when({ type: 'SubmitAppeal', appeal })
      .then([{ type: 'AppealSubmitted', data: appeal }]);
  });

  it('records an appeal once: the same appeal id again records nothing', () => {
    const recorded: AppealEvent = { type: 'AppealSubmitted', data: appeal };
    expect(spec.given([recorded]).state).toEqual({
      appealId: 'ap-1',
      decision: null,
      appealed: { actionedItem: { id: 'p1', typeId: 'post' }, actionsTaken: ['remove'] },
    });
    spec.given([recorded]).when({ type: 'SubmitAppeal', appeal }).thenNothing();
  });

  it('keeps the first appeal when the same id comes back with a different body', () => {
    const recorded: AppealEvent = { type: 'AppealSubmitted', data: appeal };
    const changed = { ...appeal, appealReason: 'something else', actionsTaken: ['ban'] };
    spec.given([recorded]).when({ type: 'SubmitAppeal', appeal: changed }).thenNothing();
  });
});

describe('appeal decider: DecideAppeal', () => {
  const submitted: AppealEvent = { type: 'AppealSubmitted', data: appeal };
  const decided: AppealDecided['data'] = {
    appealId: 'ap-1',
    decision: 'ACCEPT',
    jobId: 'job-1',
    decisionId: 'dec-1',
    decidedBy: { userId: 'bob' },
    decidedAt: '2026-01-02T10:00:00Z',
  };

  it('records the outcome of a submitted appeal with what was appealed (for the reversal of its strikes)', () => {
    const recorded = { ...decided, actionedItem: { id: 'p1', typeId: 'post' }, actionsTaken: ['remove'] };
    spec
      .given([submitted])
      .when({ type: 'DecideAppeal', decided })
      .then([{ type: 'AppealDecided', data: recorded }]);
    expect(spec.given([submitted, { type: 'AppealDecided', data: recorded }]).state).toMatchObject({ appealId: 'ap-1', decision: 'ACCEPT' });
  });

  it('decides an appeal once: a second outcome (a re-run, or another decision) records nothing', () => {
    const history: AppealEvent[] = [submitted, { type: 'AppealDecided', data: decided }];
    spec.given(history).when({ type: 'DecideAppeal', decided }).thenNothing();
    spec
      .given(history)
      .when({ type: 'DecideAppeal', decided: { ...decided, decision: 'REJECT', decisionId: 'dec-2' } })
      .thenNothing();
  });

  it('records nothing for an appeal that was never submitted', () => {
    spec.given([]).when({ type: 'DecideAppeal', decided }).thenNothing();
  });
});
