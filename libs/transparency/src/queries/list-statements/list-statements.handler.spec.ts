import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '#warden/readstore';
import { TRANSPARENCY_STATEMENTS } from '../../projections/transparency.read-model.js';
import { cursorOf, pageOf, parseCursor, readAfter, type StatementKey } from './list-statements.handler.js';

/** Documents 1…n; the odd ones in `hidden` have no view (an action mapped `dsa: false`, one the viewer may not see). */
const collection = (n: number, hidden: ReadonlySet<number>) => {
  const docs = Array.from({ length: n }, (_, i) => i + 1);
  return {
    reads: [] as number[],
    read(last: number | undefined, limit: number) {
      this.reads.push(limit);
      return Promise.resolve(docs.filter((d) => last === undefined || d > last).slice(0, limit));
    },
    viewsOf: () => Promise.resolve((doc: number) => Promise.resolve(hidden.has(doc) ? undefined : `s${doc}`)),
  };
};

/** Every page from the start, following `next`, as a client pages. */
async function allPages(n: number, hidden: ReadonlySet<number>, limit: number, scanLimit = 1_000) {
  const docs = collection(n, hidden);
  const pages: string[][] = [];
  let after: number | undefined;
  for (;;) {
    const page: { items: string[]; next: number | null } = await pageOf((last, l) => docs.read(last, l), docs.viewsOf, limit, scanLimit, after);
    pages.push(page.items);
    if (page.next === null || pages.length === 100) return pages;
    after = page.next;
  }
}

describe('statement pages (pageOf)', () => {
  it('lists what follows a page that filled partway through a short last batch', async () => {
    // Limit 3 over [hidden, 2, 3, 4, 5]: the first page reads 1–3, then 4–5 and fills at 4; 5 is on the next.
    expect(await allPages(5, new Set([1]), 3)).toEqual([['s2', 's3', 's4'], ['s5']]);
  });

  it('ends on the page that takes the collection’s last document, and on a short one', async () => {
    expect(await allPages(6, new Set(), 3)).toEqual([['s1', 's2', 's3'], ['s4', 's5', 's6'], []]);
    expect(await allPages(4, new Set([2]), 3)).toEqual([['s1', 's3', 's4']]);
    expect(await allPages(0, new Set(), 3)).toEqual([[]]);
  });

  it('lists every shown document once, whatever is hidden and whatever the page size', async () => {
    for (const limit of [1, 2, 3, 5, 8]) {
      for (const hidden of [new Set([1, 2, 3]), new Set([4, 7, 8, 9]), new Set([10]), new Set<number>()]) {
        const listed = (await allPages(10, hidden, limit)).flat();
        const expected = Array.from({ length: 10 }, (_, i) => i + 1)
          .filter((d) => !hidden.has(d))
          .map((d) => `s${d}`);
        expect(listed, `limit ${limit}, hidden ${[...hidden].join(',')}`).toEqual(expected);
      }
    }
  });

  it('looks at no more than its scan limit, however much is hidden, and the next page goes on from there', async () => {
    const docs = collection(100, new Set(Array.from({ length: 95 }, (_, i) => i + 1)));
    const first = await pageOf((last, l) => docs.read(last, l), docs.viewsOf, 3, 10);
    expect(first).toEqual({ items: [], next: 10 });
    expect(docs.reads.reduce((a, b) => a + b, 0)).toBe(10);
    expect(await allPages(100, new Set(Array.from({ length: 95 }, (_, i) => i + 1)), 3, 10)).toEqual([
      ...Array.from({ length: 9 }, () => []),
      ['s96', 's97', 's98'],
      ['s99', 's100'],
    ]);
  });

  it('lists every shown document once under a scan limit too', async () => {
    for (const [limit, scanLimit] of [
      [1, 1],
      [2, 3],
      [3, 4],
      [5, 5],
    ] as const) {
      const hidden = new Set([1, 2, 3, 6, 7, 10]);
      const listed = (await allPages(10, hidden, limit, scanLimit)).flat();
      expect(listed, `limit ${limit}, scan ${scanLimit}`).toEqual(['s4', 's5', 's8', 's9']);
    }
  });
});

describe('the statements list after a cursor (readAfter, the cursor)', () => {
  const range = { gte: '2026-11-01', lt: '2026-11-03' };
  /** Statements of acme (and one of another organization): many at one instant, as a bulk action publishes them. */
  async function storeOfStatements() {
    const store = new SqliteReadStore(new Database(':memory:'));
    await store.ensureIndex(TRANSPARENCY_STATEMENTS, ['orgId', 'decidedAt', 'puid']);
    const instants = [
      '2026-10-31T23:59:59.999Z',
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
      '2026-11-02T23:59:59.999Z',
      '2026-11-03T00:00:00.000Z',
    ];
    const writes = [];
    for (const [i, decidedAt] of instants.entries()) {
      for (let n = 0; n < (i === 2 ? 25 : 3); n++) {
        const puid = `p-${String(n).padStart(2, '0')}`;
        writes.push({ op: 'put' as const, collection: TRANSPARENCY_STATEMENTS, id: `acme:${decidedAt}:${puid}`, doc: { orgId: 'acme', decidedAt, puid } });
      }
    }
    writes.push({ op: 'put' as const, collection: TRANSPARENCY_STATEMENTS, id: 'globex', doc: { orgId: 'globex', decidedAt: instants[2]!, puid: 'p-00' } });
    await store.commit(writes);
    return store;
  }

  it('walks the period once, in order, across many statements of one instant, whatever the page size', async () => {
    const store = await storeOfStatements();
    const everything = (await readAfter(store, 'acme', range, undefined, 1_000)).map((f) => `${f.decidedAt} ${f.puid}`);
    expect(everything).toHaveLength(3 + 25 + 3);
    for (const size of [1, 2, 7, 25, 40]) {
      const walked: string[] = [];
      let last: StatementKey | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const batch = await readAfter(store, 'acme', range, last, size);
        walked.push(...batch.map((f) => `${f.decidedAt} ${f.puid}`));
        if (batch.length < size) break;
        last = batch.at(-1);
      }
      expect(walked, `page size ${size}`).toEqual(everything);
    }
  });

  it('reads back the cursor it gives, keeps an old offset cursor, and refuses a bad one or another period’s with a pointer', () => {
    const key = { decidedAt: '2026-11-01T08:00:00.000Z', puid: 'p-07' };
    expect(parseCursor(cursorOf(key), range)).toEqual(key);
    expect(parseCursor('40', range)).toBe(40);
    expect(parseCursor(undefined, range)).toBeUndefined();
    const refusal = (raw: string) => {
      try {
        parseCursor(raw, range);
      } catch (e) {
        return (e as { details: Array<{ pointer?: string; detail?: string }> }).details[0];
      }
      return undefined;
    };
    for (const bad of ['', '0x10', '1e3', 'not a cursor', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('["x"]').toString('base64url')])
      expect(refusal(bad), bad).toMatchObject({ pointer: '/cursor', detail: 'expected a cursor from an earlier page' });
    expect(refusal(cursorOf({ decidedAt: '2026-11-03T00:00:00.000Z', puid: 'p-00' }))).toMatchObject({
      pointer: '/cursor',
      detail: 'the cursor is from a page of another period',
    });
  });
});
