import type { Filter, Range, ReadStore } from './read-store.port.js';

/**
 * How many documents match, counted up to `limit`, and whether that is all of them: a list's total
 * that costs what `limit` documents do, however long an adversary has made the list (a rule firing
 * all day, a flood of reports), answered as "10,000 or more".
 */
export async function countUpTo(store: ReadStore, collection: string, filter: Filter, limit: number): Promise<{ total: number; exact: boolean }> {
  const counted = await store.count(collection, filter, { limit: limit + 1 });
  return { total: Math.min(counted, limit), exact: counted <= limit };
}

/**
 * Up to `limit` documents after `last` in the ascending order of two string fields, the second
 * breaking the first's ties (a keyset page: it costs what the first page does, where a deep
 * `skip` steps over everything before it). Two ranges of an index on (…filter, first, second),
 * since a filter has no "or": the rest of `last`'s value of the first field, ordered by the second
 * alone (SQLite serves an ORDER BY from an expression index only when no key of it is held equal),
 * then what follows it. A string's successor in byte order is itself and NUL. `within` bounds the
 * first field (a period), on every page.
 */
export async function findAfter<T extends object>(
  store: ReadStore,
  collection: string,
  filter: Filter,
  [first, second]: readonly [string, string],
  last: { readonly [field: string]: unknown } | undefined,
  limit: number,
  within: Range = {},
): Promise<T[]> {
  const order = [
    { field: first, direction: 'asc' },
    { field: second, direction: 'asc' },
  ] as const;
  const bounded = (range: Range): Filter => ({ ...filter, ...(range.gte === undefined && range.lt === undefined ? {} : { [first]: range }) });
  if (last === undefined) return store.find<T>(collection, bounded(within), { sort: order, limit });
  const [at, after] = [String(last[first]), String(last[second])];
  const same = await store.find<T>(collection, { ...filter, [first]: at, [second]: { gte: `${after}\u0000` } }, { sort: [order[1]], limit });
  if (same.length === limit) return same;
  const later = await store.find<T>(collection, bounded({ ...within, gte: `${at}\u0000` }), { sort: order, limit: limit - same.length });
  return [...same, ...later];
}
