import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authoredType, USER_TYPE } from '../support/config-files.js';
import { type ReceivedCallback, type ReviewWorld, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { removeSpamRule, SPAM_POLICY, SPAM_WORDS_RULE } from '../../bench/support/strikes-config.mjs';

/**
 * Posts with "spam" in them are removed by two LIVE rules at once (one action, one strike: policy
 * spam strikes 1); three strikes ban the user (a threshold callback on the USER item); comments
 * of a user with strikes are flagged by a USER_STRIKE_COUNT rule.
 */
function strikesConfig(callbackUrl: string): string {
  return `
org: { id: rev, name: Strikes Org }
itemTypes:
${authoredType('post', 'Post')}
${authoredType('comment', 'Comment')}
${USER_TYPE}
policies:
${SPAM_POLICY}
actions:
  - id: remove
    name: Remove
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [post]
    applyUserStrikes: true
    penalty: MEDIUM
    callback: { url: ${callbackUrl}/hooks/remove }
  - id: ban
    name: Ban
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [user]
    callback: { url: ${callbackUrl}/hooks/ban }
    body: { reason: strikes }
  - id: flag
    name: Flag
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [comment]
    callback: { url: ${callbackUrl}/hooks/flag }
rules:
${SPAM_WORDS_RULE}
${removeSpamRule('spam-shouting', 'Spam shouting', '[SPAM]', true)}
  - id: struck-users
    name: Comments of struck users
    status: LIVE
    itemTypeIds: [comment]
    actionIds: [flag]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: CREATOR }, signal: { type: USER_STRIKE_COUNT }, comparator: GTE, value: 1 }
queues:
  - { id: default, name: Default, isDefault: true }
strikes:
  windowDays: 90
  thresholds:
    - { strikes: 3, actionId: ban }
`;
}

type Body = { [key: string]: unknown };

function logOf(dataDir: string) {
  return <T>(sql: string, ...params: unknown[]): T[] => {
    const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  };
}

const post = (id: string, user: string, text = 'SPAM spam here') => ({ id, typeId: 'post', data: { text, author: { id: user, typeId: 'user' } } });

describe('user strikes and thresholds, end to end', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let world: ReviewWorld;
  let query: ReturnType<typeof logOf>;
  const bodies = (path: string, filter: (b: Body) => boolean = () => true): Body[] =>
    receiver.received
      .filter((r: ReceivedCallback) => r.path === path)
      .map((r) => JSON.parse(r.body) as Body)
      .filter(filter);
  const ofUser = (id: string) => (b: Body) => (b['creator'] as { id: string } | undefined)?.id === id;
  const submit = async (items: unknown[]) => {
    const response = await world.api('POST', '/api/v1/items/async', { items });
    expect(response.status).toBe(202);
  };
  /** Each delivery once (a retried delivery is received again under the same id). */
  const distinct = (path: string, filter: (b: Body) => boolean) => {
    const seen = new Map<string, Body>();
    for (const r of receiver.received.filter((x) => x.path === path)) {
      const body = JSON.parse(r.body) as Body;
      if (filter(body)) seen.set(String(r.headers['service-delivery-id']), body);
    }
    return [...seen.values()];
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(strikesConfig(receiver.url), []);
    query = logOf(world.dataDir);
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('three striking actions: callbacks carry 1, 2, 3 strikes and one threshold callback of the spec 6.2 shape fires', async () => {
    await submit([post('p1', 'u1'), post('p2', 'u1'), post('p3', 'u1')]);
    const removed = await waitFor(() => {
      const found = distinct('/hooks/remove', ofUser('u1'));
      return found.length === 3 && found;
    }, 'three remove callbacks of u1');
    expect(removed.map((b) => b['userStrikeCount']).sort()).toEqual([1, 2, 3]);
    const bans = await waitFor(() => {
      const found = distinct('/hooks/ban', ofUser('u1'));
      return found.length > 0 && found;
    }, 'the ban of u1');
    expect(bans).toEqual([
      {
        item: { id: 'u1', typeId: 'user', typeName: 'User' },
        action: { id: 'ban' },
        policies: [],
        rules: [],
        custom: { reason: 'strikes' },
        creator: { id: 'u1', typeId: 'user' },
        userStrikeCount: 3,
      },
    ]);
    const stream = query<{ type: string }>("SELECT type FROM events WHERE stream = 'user_strikes-rev:user:u1' ORDER BY position");
    expect(stream.filter((e) => e.type === 'UserStrikesApplied')).toHaveLength(3);
    expect(stream.filter((e) => e.type === 'UserStrikeThresholdCrossed')).toHaveLength(1);
  }, 60_000);

  it('fifty concurrent striking actions on one user fire the threshold exactly once', async () => {
    await submit(Array.from({ length: 50 }, (_, i) => post(`q${i}`, 'u2')));
    const removed = await waitFor(
      () => {
        const found = distinct('/hooks/remove', ofUser('u2'));
        return found.length === 50 && found;
      },
      { what: 'fifty remove callbacks of u2', timeoutMs: 60_000 },
    );
    expect(removed.map((b) => b['userStrikeCount']).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await waitFor(() => distinct('/hooks/ban', ofUser('u2')).length > 0, 'the ban of u2');
    const stream = query<{ type: string; data: string }>("SELECT type, data FROM events WHERE stream = 'user_strikes-rev:user:u2' ORDER BY position");
    expect(stream.filter((e) => e.type === 'UserStrikesApplied')).toHaveLength(50);
    expect(stream.filter((e) => e.type === 'UserStrikeThresholdCrossed')).toHaveLength(1);
    expect(stream.filter((e) => e.type === 'ActionCallbackRequested')).toHaveLength(1);
    const deliveries = query<{ n: number }>(
      "SELECT count(DISTINCT stream) AS n FROM events WHERE type = 'CallbackDeliveryRequested' AND json_extract(data, '$.actionId') = 'ban' AND json_extract(data, '$.item.id') = 'u2'",
    );
    expect(deliveries[0]!.n).toBe(1);
    expect(distinct('/hooks/ban', ofUser('u2'))).toHaveLength(1);
  }, 120_000);

  it('a USER_STRIKE_COUNT rule fires for a user with strikes and not for a clean one', async () => {
    await waitFor(() => distinct('/hooks/ban', ofUser('u1')).length > 0, 'u1 struck');
    await submit([
      { id: 'c-struck', typeId: 'comment', data: { text: 'hello', author: { id: 'u1', typeId: 'user' } } },
      { id: 'c-clean', typeId: 'comment', data: { text: 'hello', author: { id: 'u3', typeId: 'user' } } },
    ]);
    const flagged = await waitFor(() => {
      const found = bodies('/hooks/flag');
      return found.length > 0 && found;
    }, "the flag of the struck user's comment");
    const outcomeOf = (itemId: string) =>
      waitFor(() => {
        const [row] = query<{ data: string }>(
          "SELECT data FROM events WHERE type = 'ItemEvaluated' AND json_extract(data, '$.item.id') = ? ORDER BY position",
          itemId,
        );
        return row && (JSON.parse(row.data) as { rules: Array<{ id: string; outcome: string }> }).rules.find((r) => r.id === 'struck-users')?.outcome;
      }, `the evaluation of ${itemId}`);
    expect(await outcomeOf('c-struck')).toBe('passed');
    expect(await outcomeOf('c-clean')).toBe('failed');
    expect(flagged.map((b) => (b['item'] as { id: string }).id)).toEqual(['c-struck']);
    // The flag applies no strikes, yet its user is known: the callback carries the count.
    expect(flagged[0]!['userStrikeCount']).toBe(3);
  }, 60_000);

  it('content re-sent unchanged strikes once; changed content strikes again', async () => {
    await submit([post('r1', 'u4')]);
    await waitFor(() => distinct('/hooks/remove', ofUser('u4')).length === 1, 'the removal of r1');
    await submit([post('r1', 'u4')]);
    await submit([post('r1', 'u4', 'SPAM spam, edited')]);
    const removed = await waitFor(() => {
      const found = distinct('/hooks/remove', ofUser('u4'));
      return found.length === 2 && found;
    }, 'the removal of the changed r1');
    expect(removed.map((b) => b['userStrikeCount']).sort()).toEqual([1, 2]);
    const versions = query<{ n: number }>("SELECT count(*) AS n FROM events WHERE stream = 'item-rev:post:r1' AND type = 'ItemSubmitted'");
    expect(versions[0]!.n).toBe(3);
    const applied = query<{ n: number }>("SELECT count(*) AS n FROM events WHERE stream = 'user_strikes-rev:user:u4' AND type = 'UserStrikesApplied'");
    expect(applied[0]!.n).toBe(2);
  }, 60_000);
});
