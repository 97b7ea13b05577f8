import { describe, expect, it } from 'vitest';
import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition } from '#warden/catalog/contracts';
import { checkExecuteAction, type ExecutionCatalog, executableActions } from './execute-action-input.js';

const itemType = (id: string, kind: ItemTypeDefinition['kind']): ItemTypeDefinition => ({
  id,
  name: id,
  kind,
  version: null,
  fields: [],
  roles: {} as ItemTypeDefinition['roles'],
});
const policy = (id: string): PolicyDefinition => ({ id, name: id, penalty: 'LOW' }) as PolicyDefinition;
const remove = { id: 'remove', kind: 'CUSTOMER_DEFINED_ACTION', itemTypeIds: ['post'], body: { severity: 'high' } } as unknown as ActionDefinition;

const catalog: ExecutionCatalog = {
  itemTypes: new Map([
    ['post', itemType('post', 'CONTENT')],
    ['user', itemType('user', 'USER')],
  ]),
  policies: new Map([
    ['spam', policy('spam')],
    ['scam', policy('scam')],
  ]),
  actions: executableActions([remove]),
};
const check = (body: Record<string, unknown>) => checkExecuteAction(body, catalog, { maxItemsPerList: 3 });

describe('execute action input', () => {
  it('takes policies and reported items once each, in the order given', () => {
    const checked = check({
      actionId: 'remove',
      itemId: 'p1',
      itemTypeId: 'post',
      policyIds: ['scam', 'spam', 'scam'],
      reportedItems: [
        { id: 'p1', typeId: 'post' },
        { id: 'p1', typeId: 'post' },
        { id: 'p1', typeId: 'user' },
      ],
    });
    expect(checked.ok && checked.input.policies.map((p) => p.id)).toEqual(['scam', 'spam']);
    expect(checked.ok && checked.input.reportedItems).toEqual([
      { id: 'p1', typeId: 'post' },
      { id: 'p1', typeId: 'user' },
    ]);
    expect(checked.ok && checked.input.actorId).toBeNull();
  });

  it('the built-in enqueue actions are assigned to every item type; a catalog action only to its own', () => {
    expect(check({ actionId: 'enqueue-to-mrt', itemId: 'u1', itemTypeId: 'user' })).toMatchObject({ ok: true, input: { action: { kind: 'ENQUEUE_TO_MRT' } } });
    expect(check({ actionId: 'enqueue-to-child-safety', itemId: 'p1', itemTypeId: 'post' })).toMatchObject({ ok: true });
    expect(check({ actionId: 'remove', itemId: 'u1', itemTypeId: 'user' })).toEqual({
      ok: false,
      problems: [{ title: 'Invalid action execution', detail: "action 'remove' is not assigned to item type 'user'", pointer: '/actionId' }],
    });
  });

  it("an action with no item types (the configuration's default, []) is every item type's, as a moderator's decision reads it", () => {
    const warn = { id: 'warn', kind: 'CUSTOMER_DEFINED_ACTION', itemTypeIds: [], body: {} } as unknown as ActionDefinition;
    const checked = checkExecuteAction(
      { actionId: 'warn', itemId: 'u1', itemTypeId: 'user' },
      { ...catalog, actions: executableActions([remove, warn]) },
      { maxItemsPerList: 3 },
    );
    expect(checked).toMatchObject({ ok: true, input: { action: { id: 'warn' } } });
  });

  it('lists over the per-list limit are refused at the list', () => {
    const checked = check({ actionId: 'remove', itemId: 'p1', itemTypeId: 'post', policyIds: ['spam', 'spam', 'spam', 'spam'] });
    expect(checked).toMatchObject({ ok: false, problems: [{ pointer: '/policyIds', detail: 'at most 3 items (got 4)' }] });
  });
});
