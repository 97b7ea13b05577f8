import { describe, expect, it } from 'vitest';
import { buildActionCallbackBody, sendableBody } from './action-callback-body.js';

const item = { id: 'post-1', typeId: 'post', typeName: 'Post' };
const author = { id: 'u1', typeId: 'user' };
const policies = [
  { id: 'spam', name: 'Spam', penalty: 'LOW' },
  { id: 'scam', name: 'Scam', penalty: 'HIGH' },
];
const rules = [{ id: 'buy-now', name: 'Buy now' }];

describe('action callback body (interface-spec 6.2)', () => {
  it('for a rule: item, action, policies, rules, the configured custom body and the creator; no moderator fields', () => {
    const body = buildActionCallbackBody({
      kind: 'rule',
      item,
      action: { id: 'remove' },
      policies,
      rules,
      actionBody: { severity: 'high' },
      creator: author,
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        item,
        action: { id: 'remove' },
        policies,
        rules,
        custom: { severity: 'high' },
        creator: author,
      }),
    );
    expect(body).not.toHaveProperty('actorEmail');
    expect(body).not.toHaveProperty('actorNote');
    expect(body).not.toHaveProperty('decisionReason');
    expect(body).not.toHaveProperty('userStrikeCount');
  });

  it('keeps policies and custom present when empty, and omits a creator that cannot be resolved', () => {
    const body = buildActionCallbackBody({ kind: 'rule', item, action: { id: 'label' }, policies: [], rules, actionBody: {}, creator: null });
    expect(body).toEqual({ item, action: { id: 'label' }, policies: [], rules, custom: {} });
    expect(body).not.toHaveProperty('creator');
  });

  it('copies only the spec fields of policies, rules and the item', () => {
    const body = buildActionCallbackBody({
      kind: 'rule',
      item: { ...item, extra: 1 } as typeof item,
      action: { id: 'remove', kind: 'x' } as { id: string },
      policies: [{ ...policies[0]!, userStrikeCount: 3 } as (typeof policies)[number]],
      rules: [{ ...rules[0]!, status: 'LIVE' } as (typeof rules)[number]],
      actionBody: {},
      creator: null,
    });
    expect(body).toEqual({ item, action: { id: 'remove' }, policies: [policies[0]], rules, custom: {} });
  });

  it('for a moderator decision: parameters, reason and reportHistory merged into custom, actor fields, decisionReason', () => {
    const reportHistory = [
      { reason: 'It is spam', reporter: { id: 'u7', typeId: 'user' } },
      { reason: null, reporter: null },
    ];
    const body = buildActionCallbackBody({
      kind: 'decision',
      item,
      action: { id: 'remove' },
      policies: [policies[1]!],
      actionBody: { severity: 'high', durationDays: 1 },
      parameters: { durationDays: 7 },
      decisionReason: 'Clear scam',
      reportHistory,
      actorEmail: 'mod@acme.example',
      actorNote: 'Seen this one before',
      creator: author,
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        item,
        action: { id: 'remove' },
        policies: [policies[1]],
        rules: [],
        custom: { severity: 'high', durationDays: 7, reason: 'Clear scam', reportHistory },
        actorEmail: 'mod@acme.example',
        actorNote: 'Seen this one before',
        creator: author,
        decisionReason: 'Clear scam',
      }),
    );
  });

  it('omits actorNote, decisionReason and custom.reason when there are none, and reportHistory for unreported items', () => {
    const body = buildActionCallbackBody({
      kind: 'decision',
      item,
      action: { id: 'remove' },
      policies: [],
      rules,
      actionBody: { severity: 'high' },
      actorEmail: 'mod@acme.example',
      actorNote: '  ',
      decisionReason: null,
      reportHistory: null,
      creator: author,
    });
    expect(body).toEqual({
      item,
      action: { id: 'remove' },
      policies: [],
      rules,
      custom: { severity: 'high' },
      actorEmail: 'mod@acme.example',
      creator: author,
    });
  });

  it('for a strike threshold: empty policies and rules, no actorEmail or actorNote, the user as creator', () => {
    const user = { id: 'u1', typeId: 'user', typeName: 'User' };
    const body = buildActionCallbackBody({
      kind: 'strike-threshold',
      item: user,
      action: { id: 'ban-user' },
      actionBody: { reason: 'strikes' },
      creator: { id: 'u1', typeId: 'user' },
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        item: user,
        action: { id: 'ban-user' },
        policies: [],
        rules: [],
        custom: { reason: 'strikes' },
        creator: { id: 'u1', typeId: 'user' },
      }),
    );
  });

  it('adds userStrikeCount only when a count is given (strikes are not counted yet)', () => {
    const base = { kind: 'strike-threshold' as const, item, action: { id: 'ban-user' }, actionBody: {}, creator: author };
    expect(buildActionCallbackBody(base)).not.toHaveProperty('userStrikeCount');
    expect(buildActionCallbackBody({ ...base, userStrikeCount: null })).not.toHaveProperty('userStrikeCount');
    expect(buildActionCallbackBody({ ...base, userStrikeCount: 10 }).userStrikeCount).toBe(10);
  });

  /** An action the platform executed (`post-actions`), with `extra` inputs (a bulk action's manager and reason). */
  const executedBody = (extra: Partial<Parameters<typeof buildActionCallbackBody>[0]> = {}) =>
    buildActionCallbackBody({
      kind: 'post-actions',
      item,
      action: { id: 'remove' },
      policies,
      actionBody: { severity: 'high' },
      creator: author,
      userStrikeCount: 2,
      ...extra,
    } as Parameters<typeof buildActionCallbackBody>[0]);

  it('for an action the platform executed: as for a decision, the policies given, no rules, no actor fields', () => {
    const body = executedBody();
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({ item, action: { id: 'remove' }, policies, rules: [], custom: { severity: 'high' }, creator: author, userStrikeCount: 2 }),
    );
  });
  it("for a bulk action's execution: the manager's email as actorEmail and the reason as decisionReason, neither merged into custom", () => {
    const body = executedBody({ actorEmail: 'lead@acme.example', decisionReason: 'spam campaign' });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        item,
        action: { id: 'remove' },
        policies,
        rules: [],
        custom: { severity: 'high' },
        actorEmail: 'lead@acme.example',
        creator: author,
        decisionReason: 'spam campaign',
        userStrikeCount: 2,
      }),
    );
    expect(body).not.toHaveProperty('actorNote');
  });

  it("for a bulk action's execution: an erased manager's email and a blank reason are left out", () => {
    const body = buildActionCallbackBody({
      kind: 'post-actions',
      item,
      action: { id: 'remove' },
      policies,
      actionBody: {},
      creator: null,
      actorEmail: null,
      decisionReason: '  ',
    });
    expect(body).toEqual({ item, action: { id: 'remove' }, policies, rules: [], custom: {} });
  });

  it('sends a stored body whose actor was erased without actorEmail, never as null; any other body as stored', () => {
    const stored = { item, action: { id: 'remove' }, policies, rules: [], custom: {}, actorEmail: null, decisionReason: 'Spam campaign' };
    const { actorEmail: _erased, ...sent } = stored;
    expect(JSON.stringify(sendableBody(stored))).toBe(JSON.stringify(sent));
    const decided = { ...stored, actorEmail: 'mod@acme.example' };
    expect(sendableBody(decided)).toBe(decided);
  });
});
