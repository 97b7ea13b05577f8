import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import { ruleActivityProjection } from './rule-activity.projection.js';
import { RULE_DAILY_ACTIONS, RULE_MATCHES, ruleDailyActionsDocId, ruleMatchesDocId } from './rule-activity.read-model.js';
import { crashingBeforeCheckpoint } from '../../../../test/support/crashing-read-store.js';

const AT = '2026-03-02T09:30:00.000Z';
const DAY = '2026-03-02';

const at = (event: NewEvent, occurredAt: string): NewEvent => ({ ...event, metadata: { ...event.metadata, occurredAt } });

/** An evaluation of post `itemId` where `passed` rules passed (the others failed) and acted as `actions` say. */
function evaluated(
  itemId: string,
  passed: string[],
  options: { environment?: string; capped?: string[]; actions?: Record<string, string[]>; orgId?: string } = {},
) {
  const rules = ['r1', 'r2', 'r3'].map((id) => ({
    id,
    name: `Rule ${id}`,
    status: 'LIVE',
    outcome: passed.includes(id) ? 'passed' : 'failed',
    ...(options.capped?.includes(id) ? { capped: true } : {}),
    conditions: [],
  }));
  const actions = Object.entries(options.actions ?? {}).map(([id, by]) => ({
    id,
    kind: 'CUSTOMER_DEFINED_ACTION',
    policies: [],
    rules: by.map((r) => ({ id: r, name: `Rule ${r}` })),
  }));
  const data = {
    item: { id: itemId, typeId: 'post', typeName: 'Post' },
    version: 1,
    environment: options.environment ?? 'LIVE',
    subject: 'user:u1',
    rules,
    actions,
  };
  return at(anEvent('ItemEvaluated', data as unknown as JsonObject, options.orgId ?? 'acme'), AT);
}

const dailyCount = (itemId: string) =>
  at(anEvent('RuleDailyActionCounted', { ruleId: 'r1', item: { id: itemId, typeId: 'post' }, version: 1, content: `c-${itemId}` }), AT);

describe('rule activity projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const matches = async (ruleId: string, orgId = 'acme') =>
    (await stores.readStore.get<{ matches: Array<{ itemId: string; actionIds: string[]; capped: boolean }> }>(RULE_MATCHES, ruleMatchesDocId(orgId, ruleId)))
      ?.matches ?? [];
  const day = (ruleId: string) => stores.readStore.get(RULE_DAILY_ACTIONS, ruleDailyActionsDocId('acme', DAY, ruleId));

  async function seed() {
    const { events } = stores;
    // r1 is capped at 2: two contents counted, the third passed but was capped.
    await events.append('rule_daily_actions-acme:r1:2026-03-02', [dailyCount('p1')], 'no_stream');
    await events.append(
      'item_evaluation-acme:post:p1:1:LIVE',
      [evaluated('p1', ['r1', 'r2'], { actions: { remove: ['r1'], label: ['r1', 'r2'] } })],
      'no_stream',
    );
    await events.append('rule_daily_actions-acme:r1:2026-03-02', [dailyCount('p2')], 0);
    await events.append('item_evaluation-acme:post:p2:1:LIVE', [evaluated('p2', ['r1'], { actions: { remove: ['r1'] } })], 'no_stream');
    await events.append('item_evaluation-acme:post:p3:1:LIVE', [evaluated('p3', ['r1'], { capped: ['r1'] })], 'no_stream');
    // A backtest matched nothing for real; another organization's evaluation is its own.
    await events.append('item_evaluation-acme:post:p4:1:BACKTEST', [evaluated('p4', ['r1', 'r2', 'r3'], { environment: 'BACKTEST' })], 'no_stream');
    await events.append('item_evaluation-other:post:p5:1:LIVE', [evaluated('p5', ['r3'], { orgId: 'other', actions: { remove: ['r3'] } })], 'no_stream');
    for (let i = 0; i < 12; i++) {
      await events.append(
        `item_evaluation-acme:post:q${i}:1:RETROACTION`,
        [evaluated(`q${i}`, ['r2'], { environment: 'RETROACTION', actions: { label: ['r2'] } })],
        'no_stream',
      );
    }
  }

  it("keeps each rule's latest matches, newest first, with the actions it published, and its day's counts", async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(ruleActivityProjection, stores.events, stores.readStore).catchUp();
    expect(await matches('r1')).toEqual([
      expect.objectContaining({ itemId: 'p3', actionIds: [], capped: true }),
      expect.objectContaining({ itemId: 'p2', actionIds: ['remove'], capped: false }),
      expect.objectContaining({
        itemId: 'p1',
        itemTypeId: 'post',
        version: 1,
        evaluatedAt: AT,
        environment: 'LIVE',
        actionIds: ['remove', 'label'],
        capped: false,
      }),
    ]);
    const r2 = await matches('r2');
    expect(r2.map((m) => m.itemId)).toEqual(['q11', 'q10', 'q9', 'q8', 'q7', 'q6', 'q5', 'q4', 'q3', 'q2']);
    expect(r2[0]).toMatchObject({ environment: 'RETROACTION', actionIds: ['label'] });
    expect(await matches('r3')).toEqual([]);
    expect(await matches('r3', 'other')).toEqual([expect.objectContaining({ itemId: 'p5' })]);
    // r1: the cap counted two contents; two live evaluations published its actions.
    expect(await day('r1')).toMatchObject({ counted: 2, acted: 2 });
    // r2 acted live once (p1); retroactions are not the day's live actions.
    expect(await day('r2')).toMatchObject({ counted: 0, acted: 1 });
    expect(await day('r3')).toBeUndefined();
  });

  it('changes nothing when a batch is delivered again, and a rebuild gives the same documents', async () => {
    stores = sqliteStores();
    await seed();
    const dump = async () => JSON.stringify(await Promise.all([RULE_MATCHES, RULE_DAILY_ACTIONS].map((c) => stores.readStore.find(c))));
    // A process that dies after the writes, before its checkpoint moved (MongoDB's window).
    const crashing = crashingBeforeCheckpoint(stores.readStore);
    await expect(new ProjectionRunner(ruleActivityProjection, stores.events, crashing).catchUp()).rejects.toThrow('crashed');
    await new ProjectionRunner(ruleActivityProjection, stores.events, stores.readStore).catchUp();
    expect(await day('r1')).toMatchObject({ counted: 2, acted: 2 });
    expect((await matches('r1')).map((m) => m.itemId)).toEqual(['p3', 'p2', 'p1']);
    const delivered = await dump();
    await rebuildReadModels([ruleActivityProjection], stores.events, stores.readStore);
    expect(await dump()).toBe(delivered);
  });
});
