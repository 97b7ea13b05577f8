import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { FixedClock } from '#warden/kernel';
import { openSqlite, type SqliteDatabase } from '../sqlite/sqlite-database.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { LeaseStore } from './lease-store.port.js';
import { SqliteLeaseStore } from './sqlite-lease-store.js';

// A holder stops a third of the lease (2 s here) before it expires: slack for a test process
// whose event loop is slowed by the rest of the suite, which runs both holders' timers (with 1 s,
// a CI run on two busy cores once saw the holder's stop timer fire after the standby took over).
const timing = { ttlMs: 6000, renewEveryMs: 100 };

describe('LeaseKeeper', () => {
  const dbs: SqliteDatabase[] = [];
  const keepers: LeaseKeeper[] = [];
  afterEach(async () => {
    await Promise.all(keepers.splice(0).map((k) => k.end()));
    for (const db of dbs.splice(0)) db.close();
  });

  const file = () => join(mkdtempSync(join(tmpdir(), 'warden-keeper-')), 'warden.db');
  const store = (path: string) => {
    const db = openSqlite(path);
    dbs.push(db);
    return new SqliteLeaseStore(db, { holderIsGone: () => false });
  };
  /** Records when each worker's work runs, in one timeline. */
  const timeline: string[] = [];
  const worker = (leases: LeaseStore, holder: string) => {
    const state = { running: false };
    const keeper = new LeaseKeeper(
      leases,
      'reactor',
      holder,
      {
        start: async () => {
          state.running = true;
          timeline.push(`${holder} start`);
        },
        stop: async () => {
          state.running = false;
          timeline.push(`${holder} stop`);
        },
      },
      { timing },
    );
    keepers.push(keeper);
    return { keeper, state };
  };

  /**
   * A keeper on a clock the test moves (lease 300 ms, renewed every 100 ms), whose work's start
   * waits until the test calls `open`; begun, and its work starting.
   */
  const startingBehindAGate = async () => {
    const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const db = openSqlite(file());
    dbs.push(db);
    const leases = new SqliteLeaseStore(db, { clock, holderIsGone: () => false });
    const events: string[] = [];
    const state = { running: false, lost: 0 };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const keeper = new LeaseKeeper(
      leases,
      'reactor',
      'a',
      {
        start: async () => {
          events.push('starting');
          await gate;
          state.running = true;
          events.push('started');
        },
        stop: async () => {
          state.running = false;
          events.push('stopped');
        },
      },
      { timing: { ttlMs: 300, renewEveryMs: 100 }, clock, onLost: () => void state.lost++ },
    );
    keepers.push(keeper);
    const begun = keeper.begin();
    await waitFor(() => events.includes('starting'), 'the work starting');
    return { clock, leases, events, state, open, keeper, begun };
  };

  it('runs the work in one holder only; the standby takes over at once when the holder ends', async () => {
    timeline.length = 0;
    const path = file();
    const a = worker(store(path), 'a');
    const b = worker(store(path), 'b');
    await a.keeper.begin();
    await b.keeper.begin();
    expect(a.state.running).toBe(true);
    expect(b.state.running).toBe(false);
    await a.keeper.end();
    await waitFor(() => b.state.running, 'the standby running');
    expect(timeline).toEqual(['a start', 'a stop', 'b start']);
  });

  it('stops the work of a holder that cannot renew before the standby can take the lease', async () => {
    timeline.length = 0;
    const path = file();
    const real = store(path);
    let failing = false;
    // The narrowest seam: the holder's lease calls stop reaching the file (a stalled disk, say).
    const flaky: LeaseStore = {
      acquire: async (...args) => {
        if (failing) throw new Error('database is locked');
        return real.acquire(...args);
      },
      renew: async (...args) => {
        if (failing) throw new Error('database is locked');
        return real.renew(...args);
      },
      release: (...args) => real.release(...args),
      inspect: (name) => real.inspect(name),
    };
    // Timers and the clock both holders and the lease file read are faked, so the 6 s lease
    // passes in 100 ms steps of fake time instead of real seconds; the order is what is checked.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const a = worker(flaky, 'a');
      const b = worker(store(path), 'b');
      await a.keeper.begin();
      await b.keeper.begin();
      failing = true;
      const startedAt = Date.now();
      const seen: string[] = [];
      while (!b.state.running) {
        // The holder still running while the lease is in force; the standby never before it stopped.
        if (a.state.running) expect(b.state.running).toBe(false);
        seen.push(`${Date.now() - startedAt} ${a.state.running ? 'a' : '-'}${b.state.running ? 'b' : '-'}`);
        expect(Date.now() - startedAt, seen.join(', ')).toBeLessThan(3 * timing.ttlMs);
        await vi.advanceTimersByTimeAsync(timing.renewEveryMs);
      }
      expect(a.state.running).toBe(false);
      expect(timeline).toEqual(['a start', 'a stop', 'b start']);
      // It held on while it could (the deadline is a third of the lease before expiry), and the
      // standby took over once the lease had expired, not before.
      const stoppedAt = seen.findIndex((s) => s.endsWith('--'));
      expect(stoppedAt * timing.renewEveryMs).toBeGreaterThanOrEqual(timing.ttlMs - Math.ceil(timing.ttlMs / 3) - timing.renewEveryMs);
      expect(seen.length * timing.renewEveryMs).toBeGreaterThanOrEqual(timing.ttlMs);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops a holder that cannot renew even when its deadline timer fires before the clock says so', async () => {
    // Timers run on the loop's monotonic clock; the lease on the wall clock. A wall clock stepped
    // back after the deadline was armed (here 50 ms, as by NTP) makes the deadline fire "early":
    // it must wait the rest, not give up for good.
    const path = file();
    const real = store(path);
    let failing = false;
    const stalled: LeaseStore = {
      acquire: (...args) => real.acquire(...args),
      renew: async (...args) => {
        if (failing) throw new Error('database is locked');
        return real.renew(...args);
      },
      release: (...args) => real.release(...args),
      inspect: (name) => real.inspect(name),
    };
    let stepBack = 0;
    const lagging = { now: () => new Date(Date.now() - stepBack) };
    const state = { running: false };
    const keeper = new LeaseKeeper(
      stalled,
      'reactor',
      'a',
      { start: async () => void (state.running = true), stop: async () => void (state.running = false) },
      { timing: { ttlMs: 600, renewEveryMs: 100 }, clock: lagging },
    );
    keepers.push(keeper);
    await keeper.begin();
    expect(state.running).toBe(true);
    failing = true;
    stepBack = 50;
    await waitFor(() => !state.running, 'the holder stopped');
    expect(keeper.holding).toBe(false);
  });

  it('stops the work when a renewal is refused, and tries to take the lease again afterwards', async () => {
    timeline.length = 0;
    const path = file();
    const leases = store(path);
    const a = worker(leases, 'a');
    await a.keeper.begin();
    // Someone else holds it now (as after an expiry): the next renewal is refused.
    await leases.release('reactor', 'a');
    await leases.acquire('reactor', 'intruder', 300);
    await waitFor(() => !a.state.running, 'the holder stopped');
    await waitFor(() => a.state.running, 'the first holder running again');
    expect(timeline).toEqual(['a start', 'a stop', 'a start']);
  });

  it('stops work whose lease is lost while it is still starting only once it has started, then takes the lease back', async () => {
    // A loop blocked during a start (42 s of SAML parsing, say): the deadline fires before the start
    // has finished. Stopping it then found nothing to stop, and the start went on to run the work
    // with no lease; the next take-over started it a second time beside that.
    const { clock, leases, events, state, open, keeper, begun } = await startingBehindAGate();
    // The freeze: the lease's time ran out while the start was under way.
    clock.advance(60_000);
    await waitFor(() => state.lost > 0, 'the lease given up');
    open();
    await begun;
    // Taken back (nobody else has it) and started again, after the half-started work had stopped.
    await waitFor(() => events.length >= 5, 'the work started again');
    expect(events.slice(0, 5)).toEqual(['starting', 'started', 'stopped', 'starting', 'started']);
    expect(state.running).toBe(true);
    expect(keeper.holding).toBe(true);
    expect(await leases.inspect('reactor')).toMatchObject({ holder: 'a' });
  });

  it('renews its lease while the work takes longer to start than the lease lasts, and never stops it', async () => {
    // The transparency submitter's start catches a read model up: under a backlog that outlasted
    // the lease's margin, and the lease was given up, the work stopped and started again, in a loop.
    const { clock, leases, events, state, open, keeper, begun } = await startingBehindAGate();
    // Three leases' worth of time passes while it starts, each step short of the margin.
    for (let step = 0; step < 18; step++) {
      clock.advance(50);
      const now = clock.now().getTime();
      await waitFor(async () => ((await leases.inspect('reactor'))?.expiresAt ?? 0) > now + 200, 'the lease renewed');
    }
    open();
    await begun;
    expect(events).toEqual(['starting', 'started']);
    expect(state.lost).toBe(0);
    expect(keeper.holding).toBe(true);
  });

  it('stops the work once when both the deadline and a refused renewal say the lease is lost', async () => {
    // After a freeze both timers are due: the deadline stops the work while a renewal is on its
    // way, and the renewal's refusal arrives after. Stopping again ran the reactor's deactivate
    // twice (a second pause of the callback dispatcher, a second warning).
    const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const db = openSqlite(file());
    dbs.push(db);
    const real = new SqliteLeaseStore(db, { clock, holderIsGone: () => false });
    let answer: (() => void) | undefined;
    let frozen = false;
    const held: LeaseStore = {
      acquire: (...args) => real.acquire(...args),
      renew: async (...args) => {
        // The first renewal after the freeze waits until the test lets it through.
        if (answer === undefined && frozen) await new Promise<void>((resolve) => (answer = resolve));
        return real.renew(...args);
      },
      release: (...args) => real.release(...args),
      inspect: (name) => real.inspect(name),
    };
    const events: string[] = [];
    const keeper = new LeaseKeeper(
      held,
      'reactor',
      'a',
      { start: async () => void events.push('started'), stop: async () => void events.push('stopped') },
      { timing: { ttlMs: 300, renewEveryMs: 100 }, clock },
    );
    keepers.push(keeper);
    await keeper.begin();
    frozen = true;
    clock.advance(60_000);
    await waitFor(() => answer !== undefined && events.includes('stopped'), 'the deadline stopping the work with a renewal on its way');
    answer!();
    await waitFor(() => events.length >= 3, 'the lease taken back');
    expect(events.slice(0, 3)).toEqual(['started', 'stopped', 'started']);
  });
});
