import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import { type AppealCommand, appealDecider } from './appeal.decider.js';
import type { AppealEvent, AppealSubmitted } from './appeal.events.js';

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

/** Given events, when a command, then the events it decides. */
function given(events: AppealEvent[]) {
  const state = foldEvents(appealDecider, events);
  return { state, when: (command: AppealCommand) => appealDecider.decide(command, state) };
}

describe('appeal decider', () => {
  it('records a new appeal as it was checked', () => {
    expect(given([]).when({ type: 'SubmitAppeal', appeal })).toEqual([{ type: 'AppealSubmitted', data: appeal }]);
  });

  it('records an appeal once: the same appeal id again records nothing', () => {
    const recorded: AppealEvent = { type: 'AppealSubmitted', data: appeal };
    expect(given([recorded]).state).toEqual({ appealId: 'ap-1' });
    expect(given([recorded]).when({ type: 'SubmitAppeal', appeal })).toEqual([]);
  });

  it('keeps the first appeal when the same id comes back with a different body', () => {
    const recorded: AppealEvent = { type: 'AppealSubmitted', data: appeal };
    const changed = { ...appeal, appealReason: 'something else', actionsTaken: ['ban'] };
    expect(given([recorded]).when({ type: 'SubmitAppeal', appeal: changed })).toEqual([]);
  });
});
