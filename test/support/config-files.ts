import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SPAM_POLICY, SPAM_WORDS_RULE } from '../../bench/support/strikes-config.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EXAMPLE = join(ROOT, 'examples/acme.yaml');
/** The candidate rule docs/rules.md backtests against EXAMPLE's organization. */
export const EXAMPLE_CANDIDATE_RULE = join(ROOT, 'examples/candidate-rule.yaml');
export const exampleText = () => readFileSync(EXAMPLE, 'utf8');
/** The README's example IdP certificate: the example enables SAML, which needs a real one. */
export const EXAMPLE_IDP_CERT = readFileSync(join(ROOT, 'examples/idp-example.pem'), 'utf8');

/** A CONTENT item type with a required `text` and an `author` (a user) as its creator, as a `itemTypes:` entry. */
export const authoredType = (id: string, name: string) => `  - id: ${id}
    name: ${name}
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
    roles: { creator: author }`;

/** A routing rule sending reports for the `spam` policy of `post` items to the `spam` queue (the first entry of a `routingRules:` list). */
export const SPAM_REPORTS_RULE = `  - id: spam-reports
    name: Spam reports
    queueId: spam
    itemTypeIds: [post]
    conditionSet:
      conjunction: OR
      conditions:
        - { input: { builtin: REPORTED_POLICY }, comparator: EQUALS, value: spam }`;

/**
 * Acme with posts and members, a `spam` policy, a `spam` queue and `queue` beside it, and reports
 * for spam routed to `spam` (SPAM_REPORTS_RULE) before `moreRules` (entries of `routingRules:`).
 */
export const spamReportingOrg = (queue: { id: string; name: string }, moreRules = '') => `
org: { id: acme, name: Acme }
itemTypes:
${authoredType('post', 'Post')}
  - { id: user, name: Member, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name } }
policies:
  - { id: spam, name: Spam, penalty: LOW }
queues:
  - { id: spam, name: Spam }
  - { id: ${queue.id}, name: ${queue.name} }
routingRules:
${SPAM_REPORTS_RULE}
${moreRules}`;

/** The USER item type `user`, as a `itemTypes:` entry. */
export const USER_TYPE = `  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name } }`;

/** The `itemTypes:` of a post (text, author as its creator) and a user. */
export const POST_AND_USER_TYPES = `
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
    roles: { creator: author }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }] }
`;

/**
 * An organization whose LIVE spam rule removes posts, a strike each, with a callback to
 * `<receiverUrl>/hooks/remove` (posts by users, as authoredType). `actions` adds entries under
 * `actions:`, `after` sections after `rules:`.
 */
export const spamRemovalOrg = (org: { id: string; name: string }, receiverUrl: string, more: { actions?: string; after?: string } = {}) => `
org: { id: ${org.id}, name: ${org.name} }
itemTypes:
${authoredType('post', 'Post')}
${USER_TYPE}
policies:
${SPAM_POLICY}
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], applyUserStrikes: true, callback: { url: ${receiverUrl}/hooks/remove } }
${more.actions ?? ''}
rules:
${SPAM_WORDS_RULE}
${more.after ?? ''}
`;

/** An organization `shop` with a post type (text, author as its creator) and a user type. */
export const SHOP_ORG = `
org: { id: shop, name: Shop }${POST_AND_USER_TYPES}`;

/** Writes a variant of the example next to a copy of its hashes file; returns its path. */
export function writeConfig(text: string, name = 'config.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-config-'));
  mkdirSync(join(dir, 'banks'));
  copyFileSync(join(ROOT, 'examples/banks/known-bad.txt'), join(dir, 'banks/known-bad.txt'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The example with one substring replaced; fails loudly when the substring is not there. */
export function exampleWith(from: string | RegExp, to: string): string {
  const text = exampleText();
  const next = text.replace(from, to);
  if (next === text) throw new Error(`The example does not contain ${String(from)}`);
  return next;
}

/** Runs `read` on the embedded log's file, opened read-only, and closes it. */
function withLog<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The rows a query gives on the embedded log, opened read-only: the tests' own readers of the log build on it. */
export function queryLog<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  return withLog(dataDir, (db) => db.prepare(sql).all(...params) as T[]);
}

/** The log position of the last event, or of one organization's last event (null on none). */
export function lastLogPosition(dataDir: string, orgId?: string): number | null {
  const [row] =
    orgId === undefined
      ? queryLog<{ p: number | null }>(dataDir, 'SELECT max(position) AS p FROM events')
      : queryLog<{ p: number | null }>(dataDir, "SELECT max(position) AS p FROM events WHERE json_extract(metadata, '$.orgId') = ?", orgId);
  return row?.p ?? null;
}

/** Reads the embedded log directly, to count what an apply appended. */
export function eventCount(dataDir: string, where = '1 = 1'): number {
  return withLog(dataDir, (db) => (db.prepare(`SELECT count(*) AS n FROM events WHERE ${where}`).get() as { n: number }).n);
}

/** Every event as stored (type, data and metadata, one line each): to look for what must not be there. */
export function rawLog(dataDir: string): string {
  return withLog(dataDir, (db) =>
    (db.prepare('SELECT type, data, metadata FROM events ORDER BY position').all() as Array<{ type: string; data: string; metadata: string }>)
      .map((r) => `${r.type} ${r.data} ${r.metadata}`)
      .join('\n'),
  );
}

export interface LoggedEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/** The events of one type (every event without one) in log order, data and metadata parsed. */
export function loggedEvents(dataDir: string, type?: string): LoggedEvent[] {
  return withLog(dataDir, (db) => {
    const rows = (
      type === undefined
        ? db.prepare('SELECT type, data, metadata FROM events ORDER BY position').all()
        : db.prepare('SELECT type, data, metadata FROM events WHERE type = ? ORDER BY position').all(type)
    ) as Array<{ type: string; data: string; metadata: string }>;
    return rows.map((r) => ({
      type: r.type,
      data: JSON.parse(r.data) as Record<string, unknown>,
      metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    }));
  });
}

/** Who recorded each event of a type (`metadata.actor`), in log order. */
export const actorsOf = (dataDir: string, type: string): string[] => loggedEvents(dataDir, type).map((e) => String(e.metadata['actor']));
