import { describe, expect, it } from 'vitest';
import { pageOf } from './list-statements.handler.js';

/** Documents 1…n; the odd ones in `hidden` have no view (an action mapped `dsa: false`, one the viewer may not see). */
const collection = (n: number, hidden: ReadonlySet<number>) => {
  const docs = Array.from({ length: n }, (_, i) => i + 1);
  return {
    read: (skip: number, limit: number) => Promise.resolve(docs.slice(skip, skip + limit)),
    viewsOf: () => Promise.resolve((doc: number) => Promise.resolve(hidden.has(doc) ? undefined : `s${doc}`)),
  };
};

/** Every page from the start, following `next`, as a client pages. */
async function allPages(n: number, hidden: ReadonlySet<number>, limit: number) {
  const { read, viewsOf } = collection(n, hidden);
  const pages: string[][] = [];
  let offset: number | null = 0;
  while (offset !== null && pages.length < 100) {
    const page: { items: string[]; next: number | null } = await pageOf(read, viewsOf, limit, offset);
    pages.push(page.items);
    offset = page.next;
  }
  return pages;
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
});
