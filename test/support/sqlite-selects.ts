import type { Database } from 'better-sqlite3';

/** A SELECT of a read-model document as the read store ran it: its SQL and the values bound. */
export interface RecordedSelect {
  readonly sql: string;
  readonly params: unknown[];
}

/**
 * Records every `SELECT doc FROM …` the read store runs on `db` (the statements it actually
 * prepares, not copies of them), and gives each one's query plan: what the plan tests check
 * against the indexes their projections declare.
 */
export function recordSelects(db: Database): { readonly selects: RecordedSelect[]; plan(select: RecordedSelect): string } {
  const selects: RecordedSelect[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    if (/^SELECT doc FROM/.test(sql)) {
      const all = statement.all.bind(statement);
      statement.all = ((...params: unknown[]) => {
        selects.push({ sql, params });
        return all(...params);
      }) as typeof statement.all;
    }
    return statement;
  }) as typeof db.prepare;
  const plan = (select: RecordedSelect) =>
    (prepare(`EXPLAIN QUERY PLAN ${select.sql}`).all(...select.params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
  return { selects, plan };
}
