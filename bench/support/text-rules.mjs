// The benches' text-signal rules (bench/ingest.mjs, bench/inbound-topic.mjs): LIVE rules on posts
// that send to the `review` action, each with a TEXT_CONTAINS and a TEXT_MATCHES_REGEX condition
// over the words below (items built from them evaluate every rule without matching all).

export const WORDS = ['buy', 'cheap', 'pills', 'free', 'money', 'winner', 'click', 'offer', 'deal', 'crypto'];

/**
 * `count` rules as YAML list entries (under `rules:`). `suffix` is appended to the second term and
 * to the regex's digits ('' for ingest; 'x' for the inbound bench, whose items then match neither);
 * `bankId` adds a TEXT_BANK condition on the title.
 */
export function textSignalRules({ count = 20, suffix = '', bankId } = {}) {
  const termSuffix = suffix === '' ? '' : `-${suffix}`;
  return Array.from(
    { length: count },
    (_, i) =>
      `  - id: r${i}
    name: Rule ${i}
    status: LIVE
    itemTypeIds: [post]
    actionIds: [review]
    conditionSet:
      conjunction: ${i % 2 ? 'AND' : 'OR'}
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [${WORDS[i % 10]}-${i}, ${WORDS[(i + 3) % 10]}${termSuffix}] } }, comparator: EQUALS, value: true }
        - { input: { field: text }, signal: { type: TEXT_MATCHES_REGEX, args: { pattern: '\\\\b${WORDS[(i + 5) % 10]}\\\\s+\\\\d{${(i % 3) + 1}}${suffix}\\\\b' } }, comparator: EQUALS, value: true }` +
      (bankId === undefined
        ? ''
        : `\n        - { input: { field: title }, signal: { type: TEXT_BANK, args: { bankId: ${bankId} } }, comparator: EQUALS, value: true }`),
  ).join('\n');
}

/**
 * An organization of text posts with one LIVE rule, `<orgId>-rule`, whose one condition is `signal`
 * (a YAML flow map) equal to true: its action `notify` calls back `<receiverUrl>/<orgId>`
 * (bench/flood.mjs's other organization, bench/long-text-regex.mjs's two).
 */
export const notifyingOrg = (orgId, receiverUrl, signal) => `org: { id: ${orgId}, name: ${orgId} }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
actions:
  - { id: notify, name: Notify, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: ${receiverUrl}/${orgId} } }
rules:
  - id: ${orgId}-rule
    name: ${orgId} rule
    status: LIVE
    itemTypeIds: [post]
    actionIds: [notify]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: ${signal}, comparator: EQUALS, value: true }
`;
