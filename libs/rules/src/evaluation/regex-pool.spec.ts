import { afterEach, describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { patternId, RegexDeadlineError, RegexPool, RegexThreadError } from './regex-pool.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { randomWords } from '../../../../bench/support/random-words.mjs';

/** docs/rules.md's costly pattern: a bounded repeat between two alternations, case-insensitive. */
const COSTLY = '(?i)(?:money|free|win).{0,300}(?:bitcoin|crypto)';

/** Words in random order that never complete COSTLY, so RE2 scans them all (a repeating text would cost it nothing). */
const filler = (length: number) => randomWords(length);

/** Turns of this thread's event loop until `promise` settles: none if the work ran here. */
async function turnsWhile<T>(promise: Promise<T>): Promise<{ turns: number; result: PromiseSettledResult<T> }> {
  let settled = false;
  const result = promise.then(
    (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
    (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
  );
  void result.then(() => (settled = true));
  let turns = 0;
  while (!settled) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    turns++;
  }
  return { turns, result: await result };
}

describe('RegexPool', () => {
  const pools: RegexPool[] = [];
  const pool = (options?: ConstructorParameters<typeof RegexPool>[0]) => {
    const created = new RegexPool(options);
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.onApplicationShutdown()));
  });

  it('answers as RE2 does here, for a match and for none', async () => {
    const regexes = pool();
    const text = filler(20_000);
    const needle = `${text}free bitcoin`;
    expect(await regexes.test('acme', COSTLY, needle)).toBe(RE2JS.compile(COSTLY).test(needle));
    expect(await regexes.test('acme', COSTLY, needle)).toBe(true);
    expect(await regexes.test('acme', COSTLY, text)).toBe(false);
    expect(await regexes.test('acme', String.raw`\blorem\b`, text)).toBe(true);
  });

  it('matches on another thread: this one keeps turning while a costly match runs', async () => {
    const regexes = pool();
    // The thread started first (loading its modules takes turns of its own).
    expect(await regexes.test('acme', 'needle', 'a needle')).toBe(true);
    // About 0.15 s of RE2 (docs/rules.md's table): here it would be a single turn.
    const { turns, result } = await turnsWhile(regexes.test('acme', COSTLY, filler(256 * 1024)));
    expect(result).toEqual({ status: 'fulfilled', value: false });
    expect(turns).toBeGreaterThan(10);
  });

  it('gives up a match past its deadline, and the next match runs on a new thread', async () => {
    const regexes = pool({ deadlineMs: 300 });
    // A megabyte against a thousand-character repeat: about 1.8 s of RE2 (docs/rules.md's table), six deadlines.
    const slow = filler(1024 * 1024);
    const pattern = COSTLY.replace('300', '1000');
    const failed = regexes.test('acme', pattern, slow);
    await expect(failed).rejects.toThrow(RegexDeadlineError);
    await expect(failed).rejects.toThrow(`did not finish within 300 ms on a text of ${slow.length} characters`);
    // A new thread answers (its start counts against the deadline: asked again until it has started).
    await waitFor(async () => (await regexes.test('acme', 'needle', 'a needle').catch(() => false)) === true, 'a match on a new thread');
  });

  it('fails the matches with the cause when its thread cannot start, and the process goes on', async () => {
    const regexes = pool({ worker: new URL('../../../../test/fixtures/regex-thread/broken.mjs', import.meta.url), deadlineMs: 60_000 });
    await expect(regexes.test('acme', 'needle', 'a needle')).rejects.toThrow(RegexThreadError);
    await expect(regexes.test('acme', 'needle', 'a needle')).rejects.toThrow(/this worker cannot load/);
  });

  it('fails what still waits when the server stops, and every later match', async () => {
    const regexes = pool();
    const running = regexes.test('a', COSTLY, filler(256 * 1024));
    const waiting = regexes.test('b', 'needle', 'a needle');
    const expectations = [expect(waiting).rejects.toThrow(RegexThreadError), expect(running).rejects.toThrow()];
    await regexes.onApplicationShutdown();
    await Promise.all(expectations);
    await expect(regexes.test('a', 'needle', 'a needle')).rejects.toThrow(/the server is stopping/);
  });

  it('copies a pattern to the thread once, then names it: a list of thousands of terms is not copied with every item', async () => {
    const regexes = pool();
    const terms = Array.from({ length: 5_000 }, (_, i) => RE2JS.quote(`term${i}x`)).join('|');
    const text = filler(2_000);
    expect(await regexes.test('acme', terms, text)).toBe(false);
    expect(await regexes.test('acme', terms, `${text} term42x`)).toBe(true);
    expect(await regexes.test('other', terms, text)).toBe(false);
    expect(regexes.patternCharsPosted).toBe(terms.length);
    // Another pattern is copied once too, and the first is still named.
    expect(await regexes.test('acme', 'needle', 'a needle')).toBe(true);
    expect(await regexes.test('acme', terms, `term4999x ${text}`)).toBe(true);
    expect(regexes.patternCharsPosted).toBe(terms.length + 'needle'.length);
  });

  it('gives a pattern the same id however often it is forgotten, and different patterns different ids', () => {
    const terms = Array.from({ length: 5_000 }, (_, i) => `term${i}x`).join('|');
    expect(patternId(terms)).toBe(patternId(`${terms}`.slice(0)));
    expect(patternId(terms)).not.toBe(patternId(`${terms}|more`));
    expect(patternId('needle')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Lone surrogates are hashed as they are, not as U+FFFD.
    expect(new Set(['a\ud800', 'a\ud801', 'a\ufffd'].map(patternId)).size).toBe(3);
  });

  it('sends a pattern again to a thread that no longer has it, and answers as RE2 does', async () => {
    const regexes = pool({ worker: new URL('../../../../test/fixtures/regex-thread/forgetful.mjs', import.meta.url) });
    expect(await regexes.test('acme', 'needle', 'a needle')).toBe(true);
    expect(await regexes.test('acme', 'needle', 'a haystack')).toBe(false);
    expect(await regexes.test('acme', 'needle', 'needles')).toBe(true);
    expect(regexes.patternCharsPosted).toBe(3 * 'needle'.length);
  });

  it('sends the patterns again to the thread that follows one past its deadline', async () => {
    const regexes = pool({ deadlineMs: 300 });
    // The first thread has the pattern. Its start counts against the deadline, and on a loaded
    // machine it can take longer than 300 ms: asked again until it has started.
    await waitFor(async () => (await regexes.test('acme', 'needle', 'a needle').catch(() => false)) === true, 'a match on the first thread');
    await expect(regexes.test('acme', COSTLY.replace('300', '1000'), filler(1024 * 1024))).rejects.toThrow(RegexDeadlineError);
    await waitFor(async () => (await regexes.test('acme', 'needle', 'a needle').catch(() => false)) === true, 'a match on a new thread');
    expect(await regexes.test('acme', 'needle', 'a haystack')).toBe(false);
  });

  it('takes the organizations waiting in turns: a burst of one delays another by one match, not by the burst', async () => {
    const regexes = pool();
    const order: string[] = [];
    const ask = (orgId: string, n: number) => regexes.test(orgId, 'needle', `${orgId} ${n} needle`).then(() => order.push(`${orgId}${n}`));
    // Asked for together: the first of the burst starts at once, the rest wait with the other organization's.
    await Promise.all([ask('a', 1), ask('a', 2), ask('a', 3), ask('a', 4), ask('b', 1), ask('c', 1), ask('b', 2)]);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']);
  });
});
