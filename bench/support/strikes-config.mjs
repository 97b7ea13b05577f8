// The benches' organization of striking posts (bench/enforcement.mjs, bench/flood.mjs): posts by a
// user, every post with "spam" removed by a LIVE rule whose action applies one strike, thresholds
// at 3 (warn) and 10 (ban) on the user; every action a callback to the bench's receiver.

/** Policy `spam`, one strike: a YAML list entry under `policies:` (also the e2e suites' strikes organizations). */
export const SPAM_POLICY = '  - { id: spam, name: Spam, penalty: LOW, userStrikeCount: 1 }';

/**
 * A LIVE rule on posts whose text contains one of `terms` (a YAML flow list): action `remove` under
 * policy `spam`. A list entry under `rules:`; the benches' and the e2e suites' spam rules.
 */
export const removeSpamRule = (id, name, terms, caseSensitive = false) => `  - id: ${id}
    name: ${name}
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    policyIds: [spam]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ${terms}${caseSensitive ? ', caseSensitive: true' : ''} } }, comparator: EQUALS, value: true }`;

/** Rule `spam-words`: a post containing "spam" is removed. */
export const SPAM_WORDS_RULE = removeSpamRule('spam-words', 'Spam words', '[spam]');

/** A post authored by a user (its creator), and the USER type. */
export const POST_AND_USER_TYPES = `itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
    roles: { creator: author }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }] }`;

export const strikesConfig = (receiverUrl) => `org: { id: bench, name: Bench }
${POST_AND_USER_TYPES}
policies:
${SPAM_POLICY}
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], applyUserStrikes: true, penalty: MEDIUM, callback: { url: ${receiverUrl}/remove } }
  - { id: warn, name: Warn, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [user], callback: { url: ${receiverUrl}/warn } }
  - { id: ban, name: Ban, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [user], callback: { url: ${receiverUrl}/ban } }
rules:
${SPAM_WORDS_RULE}
strikes:
  thresholds:
    - { strikes: 3, actionId: warn }
    - { strikes: 10, actionId: ban }
`;
