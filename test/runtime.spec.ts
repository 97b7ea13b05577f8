import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('runs the tests on the Node pinned in package.json', () => {
    expect(process.version).toBe(`v${pkg.devDependencies['node']}`);
    expect(pkg.engines.node).toBe('>=24.0.0');
  });

  it('loads every native dependency on this Node', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    expect(db.prepare('SELECT sqlite_version() AS v').get()).toMatchObject({ v: expect.stringMatching(/^3\./) });
    db.close();
    const kurrent = await import('@kurrent/kurrentdb-client');
    expect(typeof kurrent.jsonEvent).toBe('function');
    // The client's native bridge is mapped into the process at import.
    expect(readFileSync('/proc/self/maps', 'utf8')).toMatch(/@kurrent\/bridge-[^/]+\/index\.node/);
  });
});
