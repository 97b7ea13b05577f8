// The partial-items organization's rule and queue, shared by bench/partial-items.mjs and
// test/e2e/partial-items.e2e.spec.ts: a post's rule needs `likes`, which a partial post lacks, so
// deciding it takes a fetch of the whole item (docs/partial-items.md).
export const UNPOPULAR_SPAM_RULE_AND_QUEUE = `rules:
  - id: unpopular-spam
    name: Unpopular spam
    status: LIVE
    itemTypeIds: [post]
    actionIds: [enqueue-to-mrt]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [spam] } }, comparator: EQUALS, value: true }
        - { input: { field: likes }, comparator: LT, value: 2 }
queues:
  - { id: default, name: Default, isDefault: true }`;
