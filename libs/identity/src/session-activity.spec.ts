import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../test/support/sqlite-stores.js';
import { loadConfig, SESSION_TTL_MS } from '#warden/platform';
import { CONSOLE_SESSION_ACTIVITY, type ConsoleSessionActivityDoc } from './projections/users.read-model.js';
import { SessionActivity } from './session-activity.js';

const MINUTE = 60_000;
const OPENED = Date.parse('2026-12-02T09:00:00Z');

describe('SessionActivity: the console idle timeout', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** `processes` sessions checkers over one read store (as api processes share the read models), timeout in seconds. */
  async function setup(timeoutSeconds: string | undefined = undefined, processes = 1) {
    const stores = sqliteStores();
    const config = loadConfig(timeoutSeconds === undefined ? {} : { WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS: timeoutSeconds }, '/tmp');
    const checkers = await Promise.all(
      Array.from({ length: processes }, async () => {
        const activity = new SessionActivity(stores.readStore, config);
        activity.onModuleInit();
        return activity;
      }),
    );
    cleanups.push(async () => {
      for (const c of checkers) await c.onApplicationShutdown();
      await stores.close();
    });
    return { checkers, stores };
  }

  it('refuses a session left unused for longer than 30 minutes by default, and keeps one in use going', async () => {
    const {
      checkers: [activity],
    } = await setup();
    expect(await activity!.use('s1', OPENED, OPENED + 29 * MINUTE)).toBe(true);
    // Each use starts the 30 minutes again: an hour after sign-in, still good.
    expect(await activity!.use('s1', OPENED, OPENED + 58 * MINUTE)).toBe(true);
    expect(await activity!.use('s1', OPENED, OPENED + 88 * MINUTE)).toBe(true);
    // Then 31 minutes without a request.
    expect(await activity!.use('s1', OPENED, OPENED + 119 * MINUTE)).toBe(false);
    // Refused, it stays refused (a refusal is no use).
    expect(await activity!.use('s1', OPENED, OPENED + 119 * MINUTE + 1)).toBe(false);
    // A session never used is idle from its opening.
    expect(await activity!.use('s2', OPENED, OPENED + 31 * MINUTE)).toBe(false);
  });

  it("counts another process's uses once it has written them", async () => {
    const {
      checkers: [a, b],
    } = await setup('600', 2);
    expect(await a!.use('s1', OPENED, OPENED + 9 * MINUTE)).toBe(true);
    await a!.flush(OPENED + 9 * MINUTE);
    // Process b never served it: 15 minutes after the opening, but 6 after a's use.
    expect(await b!.use('s1', OPENED, OPENED + 15 * MINUTE)).toBe(true);
    // And b's use counts for a after b's flush.
    await b!.flush(OPENED + 15 * MINUTE);
    expect(await a!.use('s1', OPENED, OPENED + 24 * MINUTE)).toBe(true);
    expect(await a!.use('s1', OPENED, OPENED + 35 * MINUTE)).toBe(false);
  });

  it('0 turns it off: only the session life ends a session', async () => {
    const {
      checkers: [activity],
    } = await setup('0');
    expect(await activity!.use('s1', OPENED, OPENED + 29 * 24 * 60 * MINUTE)).toBe(true);
  });

  it("writes each used session's last use, and deletes the activity of sessions past their whole life", async () => {
    const {
      checkers: [activity],
      stores,
    } = await setup('600');
    expect(await activity!.use('old', OPENED, OPENED + MINUTE)).toBe(true);
    expect(await activity!.use('new', OPENED + 40 * 24 * 60 * MINUTE, OPENED + 40 * 24 * 60 * MINUTE)).toBe(true);
    await activity!.flush(OPENED + MINUTE);
    expect(await stores.readStore.get<ConsoleSessionActivityDoc>(CONSOLE_SESSION_ACTIVITY, 'old')).toEqual({
      sessionId: 'old',
      lastUsedAt: new Date(OPENED + MINUTE).toISOString(),
    });
    // A flush with a use to write, a session's life after the old one's last use: its activity goes, the newer stays.
    expect(await activity!.use('newer', OPENED + MINUTE + SESSION_TTL_MS, OPENED + MINUTE + SESSION_TTL_MS)).toBe(true);
    await activity!.flush(OPENED + MINUTE + SESSION_TTL_MS + 1);
    expect(await stores.readStore.get(CONSOLE_SESSION_ACTIVITY, 'old')).toBeUndefined();
    expect(await stores.readStore.get(CONSOLE_SESSION_ACTIVITY, 'new')).toBeDefined();
  });
});
