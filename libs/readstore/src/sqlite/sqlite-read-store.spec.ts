import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from './sqlite-read-store.js';

describe('SqliteReadStore indexes', () => {
  it('serves a find on the indexed fields from the collection\'s partial index, not a scan', async () => {
    const db = new Database(':memory:');
    const statements: string[] = [];
    const prepare = db.prepare.bind(db);
    // The narrowest seam: remember the SQL the store runs, to ask SQLite for its plan.
    db.prepare = ((sql: string) => (statements.push(sql), prepare(sql))) as typeof db.prepare;
    const store = new SqliteReadStore(db);
    await store.commit(
      Array.from({ length: 200 }, (_, i) => ({ op: 'put' as const, collection: i % 2 ? 'evaluations' : 'other', id: `d${i}`, doc: { orgId: 'o', itemId: `i${i % 10}` } })),
    );
    await store.ensureIndex('evaluations', ['orgId', 'itemId']);
    const found = await store.find('evaluations', { orgId: 'o', itemId: 'i3' });
    expect(found).toHaveLength(20);
    const sql = statements.findLast((s) => s.startsWith('SELECT doc FROM read_models WHERE'))!;
    const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`).all('o', 'i3', -1, 0) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX rm_evaluations_orgId__itemId/);
    await expect(store.find('bad name; drop', {})).rejects.toThrow(/collection name/);
    db.close();
  });
});

describe('SqliteReadStore on a file written before documents carried positions', () => {
  it('adds the position column and reads the old documents as written without one', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID;
             INSERT INTO read_models VALUES ('c', 'old', '{"v":1}');`);
    const store = new SqliteReadStore(db);
    expect(await store.getVersioned('c', 'old')).toEqual({ doc: { v: 1 }, position: 0 });
    await store.commit([{ op: 'put', collection: 'c', id: 'old', doc: { v: 2 }, position: 3 }]);
    expect(await store.getVersioned('c', 'old')).toEqual({ doc: { v: 2 }, position: 3 });
    new SqliteReadStore(db);
    expect(await store.get('c', 'old')).toEqual({ v: 2 });
    db.close();
  });
});
