import { describe, expect, it } from 'vitest';
import type { PolicyDefinition } from '#warden/catalog/contracts';
import { actionStrikes, policyStrikeCount } from './user-strikes.inheritance.js';

const policy = (id: string, parentId: string | null, userStrikeCount: number, applyUserStrikeCountConfigToChildren = false): PolicyDefinition => ({
  id,
  name: id,
  parentId,
  policyText: null,
  enforcementGuidelines: null,
  policyType: null,
  penalty: 'LOW',
  userStrikeCount,
  applyUserStrikeCountConfigToChildren,
});

const tree = new Map(
  [
    policy('abuse', null, 4, true),
    policy('harassment', 'abuse', 0),
    policy('threats', 'harassment', 0),
    policy('insults', 'harassment', 1),
    policy('spam', null, 2, false),
    policy('spam-links', 'spam', 0),
    policy('loop-a', 'loop-b', 0),
    policy('loop-b', 'loop-a', 0),
  ].map((p) => [p.id, p]),
);

describe('strike count inheritance', () => {
  it('a policy with its own count keeps it', () => {
    expect(policyStrikeCount('insults', tree)).toBe(1);
    expect(policyStrikeCount('abuse', tree)).toBe(4);
  });

  it('a policy without one inherits from the nearest ancestor that applies its count to children', () => {
    expect(policyStrikeCount('harassment', tree)).toBe(4);
    expect(policyStrikeCount('threats', tree)).toBe(4);
  });

  it('an ancestor that does not apply its count to children gives none', () => {
    expect(policyStrikeCount('spam-links', tree)).toBe(0);
  });

  it('unknown policies and parent cycles give none', () => {
    expect(policyStrikeCount('nope', tree)).toBe(0);
    expect(policyStrikeCount('loop-a', tree)).toBe(0);
  });

  it('an action strikes with the largest count of its policies, and only with applyUserStrikes', () => {
    expect(actionStrikes({ applyUserStrikes: true }, ['insults', 'spam', 'threats'], tree)).toBe(4);
    expect(actionStrikes({ applyUserStrikes: false }, ['threats'], tree)).toBe(0);
    expect(actionStrikes(undefined, ['threats'], tree)).toBe(0);
    expect(actionStrikes({ applyUserStrikes: true }, [], tree)).toBe(0);
  });
});
