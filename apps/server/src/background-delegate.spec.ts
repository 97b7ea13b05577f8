import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '#warden/platform';
import { waitFor } from '../../../test/support/wait-for.js';
import { BackgroundThread } from './background-delegate.js';

// The main thread's side of the background thread across a real worker boundary: the worker is a
// stand-in speaking the thread's protocol (test/fixtures/background-thread/). The thread itself
// runs in every e2e test of a one-process server, and in test/e2e/background-thread.e2e.spec.ts.

const fixture = (name: string) => new URL(`../../../test/fixtures/background-thread/${name}.mjs`, import.meta.url);

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: Array<{ msg: string; reason?: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  return { logger, messages: () => lines.map((l) => l.msg) };
}

/** The value of one sample line of a Prometheus exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('BackgroundThread (the main thread side)', () => {
  let thread: BackgroundThread | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await thread?.stop();
    thread = undefined;
    delete process.env['WARDEN_TEST_EXIT_ONCE'];
    delete process.env['WARDEN_TEST_EXIT_AFTER_METRICS'];
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("adds the thread's metrics to the process's, without its runtime figures; none once stopped", async () => {
    const metrics = new Metrics();
    metrics.appendedEvents.inc(2);
    metrics.projectionPosition.set({ projection: 'notes' }, 40);
    const { logger, messages } = capturingLogger();
    thread = BackgroundThread.start(logger, metrics, { entry: fixture('answers') });
    await waitFor(() => messages().includes('background thread started'), 'the thread to say it is ready');
    const text = await metrics.exposition();
    // Counters add up; a projection's position is the furthest either thread has got.
    expect(sample(text, 'warden_eventstore_appended_events_total')).toBe(7);
    expect(sample(text, 'warden_projection_position{projection="notes"}')).toBe(42);
    // The runtime's figures are the main thread's alone (the stand-in sends none; the main thread's are there once),
    // the process's start time included (its aggregator would omit it from a sum).
    expect(text.split('\n').filter((l) => l.startsWith('# TYPE warden_process_cpu_user_seconds_total')).length).toBe(1);
    expect(sample(text, 'warden_process_start_time_seconds')).toBeGreaterThan(0);

    await thread.stop();
    expect(thread.running).toBe(false);
    const after = await metrics.exposition();
    expect(sample(after, 'warden_eventstore_appended_events_total')).toBe(2);
    expect(sample(after, 'warden_projection_position{projection="notes"}')).toBe(40);
  });

  it("keeps the counters of a run that ended: the process's totals never go down across a restart", async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-background-'));
    // The stand-in's first run exits once it has answered for its metrics; the second stays.
    process.env['WARDEN_TEST_EXIT_AFTER_METRICS'] = join(dir, 'exited');
    const metrics = new Metrics();
    metrics.appendedEvents.inc(2);
    const { logger, messages } = capturingLogger();
    thread = BackgroundThread.start(logger, metrics, { entry: fixture('answers'), restartDelaysMs: [10] });
    await waitFor(() => messages().includes('background thread started'), 'the first run to be ready');
    expect(sample(await metrics.exposition(), 'warden_eventstore_appended_events_total')).toBe(7);
    await waitFor(() => messages().filter((m) => m === 'background thread started').length === 2, 'the thread, started again, to be ready');
    // 2 here, 5 of the run that ended, 5 of the new run; a gauge of the run that ended is not kept.
    const text = await metrics.exposition();
    expect(sample(text, 'warden_eventstore_appended_events_total')).toBe(12);
    expect(sample(text, 'warden_projection_position{projection="notes"}')).toBe(42);
  });

  it('starts the thread again when it ends without being told to, and not after a stop', async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-background-'));
    // The stand-in's first run exits at once; the second stays.
    process.env['WARDEN_TEST_EXIT_ONCE'] = join(dir, 'exited');
    const metrics = new Metrics();
    const { logger, messages } = capturingLogger();
    thread = BackgroundThread.start(logger, metrics, { entry: fixture('answers'), restartDelaysMs: [10] });
    await waitFor(() => messages().includes('background thread started'), 'the thread, started again, to say it is ready');
    expect(messages().filter((m) => m === 'background thread ended: started again after a delay')).toHaveLength(1);
    expect(sample(await metrics.exposition(), 'warden_eventstore_appended_events_total')).toBe(5);
    await thread.stop();
    expect(messages().filter((m) => m === 'background thread ended: started again after a delay')).toHaveLength(1);
  });

  it('runs the work on the main thread once the thread has failed to start three times in a row, and tries no more', async () => {
    const metrics = new Metrics();
    const { logger, messages } = capturingLogger();
    let fellBack = 0;
    thread = BackgroundThread.start(logger, metrics, { entry: fixture('fails'), restartDelaysMs: [10], fallBack: () => fellBack++ });
    await waitFor(() => fellBack === 1, 'the fall-back to the main thread');
    expect(messages().filter((m) => m === 'background thread could not start')).toHaveLength(3);
    expect(messages()).toContain('background thread could not start: its work runs on the main thread');
    expect(thread.running).toBe(false);
    // Nothing is started again after it: the stop finds no thread and no restart due.
    await thread.stop();
    expect(fellBack).toBe(1);
    expect(messages().filter((m) => m === 'background thread could not start')).toHaveLength(3);
  });

  it('ends a thread that could not start, and tries again after the next delay', async () => {
    const metrics = new Metrics();
    const { logger, messages } = capturingLogger();
    thread = BackgroundThread.start(logger, metrics, { entry: fixture('fails'), restartDelaysMs: [10, 3_600_000] });
    // The first failure: terminated, started again after 10 ms; the second: terminated, the next try an hour away.
    await waitFor(() => messages().filter((m) => m === 'background thread ended: started again after a delay').length === 2, 'two failed starts, each ended');
    expect(messages().filter((m) => m === 'background thread could not start')).toHaveLength(2);
    expect(thread.running).toBe(false);
    // A stop while it waits to start again: nothing starts after it.
    await thread.stop();
    expect(thread.running).toBe(false);
  });
});
