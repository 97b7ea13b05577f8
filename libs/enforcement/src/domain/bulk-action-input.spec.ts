import { describe, expect, it } from 'vitest';
import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition } from '#warden/catalog/contracts';
import { checkBulkAction, MAX_BULK_ITEMS, MAX_ITEM_PROBLEMS } from './bulk-action-input.js';
import { bulkExecutionId } from './bulk-action.streams.js';
import { type ExecutionCatalog, executableActions } from './execute-action-input.js';

const itemType = (id: string, kind: ItemTypeDefinition['kind']): ItemTypeDefinition => ({
  id,
  name: id,
  kind,
  version: null,
  fields: [],
  roles: {} as ItemTypeDefinition['roles'],
});
const policy = (id: string): PolicyDefinition => ({ id, name: id, penalty: 'LOW' }) as PolicyDefinition;
const remove = { id: 'remove', kind: 'CUSTOMER_DEFINED_ACTION', itemTypeIds: ['post'], body: {} } as unknown as ActionDefinition;

const catalog: ExecutionCatalog = {
  itemTypes: new Map([
    ['post', itemType('post', 'CONTENT')],
    ['user', itemType('user', 'USER')],
  ]),
  policies: new Map([['spam', policy('spam')]]),
  actions: executableActions([remove]),
};
const check = (body: Record<string, unknown>) => checkBulkAction(body, catalog, { maxPolicies: 5 });
const good = { actionId: 'remove', policyIds: ['spam'], reason: 'campaign', items: [{ id: 'p1', typeId: 'post' }] };
const pointers = (body: Record<string, unknown>) => {
  const checked = check(body);
  return checked.ok ? [] : checked.problems.map((p) => p.pointer);
};

describe('bulk action input', () => {
  it('keeps each item once, in the order first given, and counts the duplicates', () => {
    const checked = check({
      ...good,
      items: [
        { id: 'p1', typeId: 'post' },
        { id: 'p2', typeId: 'post' },
        { id: 'p1', typeId: 'post' },
      ],
    });
    expect(checked.ok && checked.input.items).toEqual([
      { id: 'p1', typeId: 'post' },
      { id: 'p2', typeId: 'post' },
    ]);
    expect(checked.ok && checked.input.duplicates).toBe(1);
  });

  it("takes items of every type for an action with no item types (the configuration's default, [])", () => {
    const warn = { id: 'warn', kind: 'CUSTOMER_DEFINED_ACTION', itemTypeIds: [], body: {} } as unknown as ActionDefinition;
    const checked = checkBulkAction(
      {
        ...good,
        actionId: 'warn',
        items: [
          { id: 'p1', typeId: 'post' },
          { id: 'u1', typeId: 'user' },
        ],
      },
      { ...catalog, actions: executableActions([remove, warn]) },
      { maxPolicies: 5 },
    );
    expect(checked.ok && checked.input.items).toEqual([
      { id: 'p1', typeId: 'post' },
      { id: 'u1', typeId: 'user' },
    ]);
  });

  it('names every problem at its pointer', () => {
    const items = [{ id: 'a\u0000', typeId: 'post' }, { id: 'u', typeId: 'user' }, 7];
    // `remove` is not assigned to users.
    expect(pointers({ actionId: 'remove', items, policyIds: ['nope'] })).toEqual(['/policyIds/0', '/reason', '/items/0/id', '/items/1/typeId', '/items/2']);
    expect(pointers({ items: [{ id: 'u', typeId: 'user' }], reason: 'r' })).toEqual(['/actionId']);
    expect(pointers({ ...good, actionId: 'nope' })).toEqual(['/actionId']);
    expect(pointers({ ...good, reason: '   ' })).toEqual(['/reason']);
    expect(pointers({ ...good, items: [] })).toEqual(['/items']);
  });

  it('takes at most 10,000 items, and lists at most 100 problems of single items', () => {
    const many = (n: number, typeId = 'post') => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, typeId }));
    expect(check({ ...good, items: many(MAX_BULK_ITEMS) }).ok).toBe(true);
    expect(pointers({ ...good, items: many(MAX_BULK_ITEMS + 1) })).toEqual(['/items']);
    const problems = pointers({ ...good, items: many(150, 'nope') });
    expect(problems).toHaveLength(MAX_ITEM_PROBLEMS + 1);
    expect(problems.at(-1)).toBe('/items');
  });

  it('names an execution by organization, action, the set of policies, reason and item', () => {
    const item = { id: 'p1', typeId: 'post' };
    const id = bulkExecutionId('acme', 'remove', ['spam', 'scam'], 'campaign', item);
    expect(bulkExecutionId('acme', 'remove', ['scam', 'spam', 'spam'], 'campaign', item)).toBe(id);
    for (const other of [
      bulkExecutionId('other', 'remove', ['spam', 'scam'], 'campaign', item),
      bulkExecutionId('acme', 'ban', ['spam', 'scam'], 'campaign', item),
      bulkExecutionId('acme', 'remove', ['spam'], 'campaign', item),
      bulkExecutionId('acme', 'remove', ['spam', 'scam'], 'another', item),
      bulkExecutionId('acme', 'remove', ['spam', 'scam'], 'campaign', { id: 'p1', typeId: 'user' }),
    ]) {
      expect(other).not.toBe(id);
    }
  });
});
