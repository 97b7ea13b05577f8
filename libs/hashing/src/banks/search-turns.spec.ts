import { describe, expect, it } from 'vitest';
import { SearchTurns } from './search-turns.js';

describe('SearchTurns', () => {
  it('runs one search at a time, organizations in turn, and lets other waiting work run between two', async () => {
    const turns = new SearchTurns();
    const log: string[] = [];
    let running = 0;
    const search = (name: string) => () => {
      running++;
      expect(running).toBe(1);
      log.push(name);
      running--;
      return name;
    };
    const a = ['a1', 'a2', 'a3', 'a4'].map((n) => turns.run('org-a', search(n)));
    const b = ['b1', 'b2'].map((n) => turns.run('org-b', search(n)));
    expect(turns.queued).toBe(5); // the first is on its way
    // Work queued by another part of the process once the searches are: it waits for one search, not for all six.
    const other = new Promise<void>((resolve) => setImmediate(() => (log.push('other'), resolve())));
    expect(await Promise.all([...a, ...b])).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'b2']);
    await other;
    // org-a's first search had started alone; then the two take turns.
    expect(log).toEqual(['a1', 'other', 'a2', 'b1', 'a3', 'b2', 'a4']);
    expect(turns.queued).toBe(0);
  });

  it('frees the turn when a search throws', async () => {
    const turns = new SearchTurns();
    await expect(
      turns.run('org-a', () => {
        throw new Error('bad hash');
      }),
    ).rejects.toThrow('bad hash');
    expect(await turns.run('org-a', () => 'next')).toBe('next');
  });
});
