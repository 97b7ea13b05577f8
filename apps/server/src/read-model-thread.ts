// The read-model thread's entry (docs/architecture.md, "The read-model thread"): started by a
// worker or `all` process (ReadModelThread in read-model-delegate.ts), never run by itself. It
// opens the same stores with connections of its own, composes the application without HTTP or
// background work (as a CLI call does), and runs the read-model projections it is given once told
// to start, answering the main thread's catch-ups and reporting each committed batch.
import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import { NestFactory } from '@nestjs/core';
import { createRootLogger, loadConfig, Metrics, PinoNestLogger } from '#warden/platform';
import { openStorage, ProjectionHost } from '#warden/storage';
import { AppModule } from './app.module.js';
import type { FromThread, ToThread } from './read-model-delegate.js';

async function runReadModelThread(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('read-model-thread.js runs as a worker thread of the server');
  const { names } = workerData as { names: string[] };
  const send = (message: FromThread) => port.postMessage(message);
  let opened: { close(): Promise<void> } | undefined;
  try {
    // The same environment as the main thread, which has checked it already.
    const config = loadConfig();
    const logger = createRootLogger(config.logLevel).child({ thread: 'read-models' });
    // The main thread runs the WAL checkpointer for every connection of the process.
    // Only projections read here: reads of a turn share a transaction (SqliteReadStore, readsShareTurn).
    const storage = await openStorage({ ...config, backgroundCheckpoints: true, checkpointsElsewhere: true, projectionsOnly: true });
    opened = storage;
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: false }), {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    });
    const host = app.get(ProjectionHost);
    reportProgress(host, send);
    const waits = reportBackgroundWaits(app.get(Metrics), send);
    let stopping = false;
    port.on('message', (message: ToThread) => {
      if (message.kind === 'start') {
        // Once the main thread's runners of these projections have stopped: from their stored
        // checkpoints. A start that comes after the stop (a shutdown during the hand-over) starts
        // nothing: the host is stopping (ProjectionHost.startOnly).
        if (stopping) return;
        host.startOnly(names).then(
          () => {
            // Where each has got, for the main thread's lag and positions before its first batch.
            send({ kind: 'progress', positions: names.map((name) => [name, host.positionOf(name)] as const) });
            send({ kind: 'ready' });
          },
          (error: unknown) => {
            send({ kind: 'failed', error: String(error) });
            port.close();
          },
        );
        return;
      }
      if (message.kind === 'stop') {
        stopping = true;
        // Closing the application stops the projections first (StorageModule's shutdown hook);
        // then the held batches of the last second go out.
        void stop(app, storage)
          .then(() => waits.last())
          .then(
            () => port.close(),
            (error: unknown) => {
              logger.error({ msg: 'read-model thread: stopping failed', error: String(error) });
              port.close();
            },
          );
        return;
      }
      const done = message.kind === 'catchUp' ? host.catchUp(message.name) : host.catchUpTo(message.name, message.position, message.waitMs);
      done.then(
        () => send({ kind: 'done', id: message.id }),
        (error: unknown) => send({ kind: 'done', id: message.id, error: String(error) }),
      );
    });
  } catch (error) {
    send({ kind: 'failed', error: String(error) });
    // The main thread terminates the thread when it hears of the failure; the stores close first if they can.
    await opened?.close().catch(() => undefined);
    port.close();
  }
}

/**
 * Each committed batch, as a position per projection: at most one message per turn of the event
 * loop, however many projections committed in it.
 */
function reportProgress(host: ProjectionHost, send: (message: FromThread) => void): void {
  const positions = new Map<string, number>();
  host.onProgress((name, position) => {
    if (positions.size === 0)
      setImmediate(() => {
        send({ kind: 'progress', positions: [...positions] });
        positions.clear();
      });
    positions.set(name, position);
  });
}

/** How often the thread's held batches are reported to the main thread's metrics, when they changed (ms). */
const WAITS_REPORT_MS = 1_000;

/**
 * The thread's running totals of held batches (its own `warden_projection_background_waits_total`,
 * in a registry nothing scrapes), sent to the main thread whenever they changed.
 */
function reportBackgroundWaits(metrics: Metrics, send: (message: FromThread) => void): { last(): Promise<void> } {
  let sent = '';
  const report = async () => {
    const { values } = await metrics.backgroundWaits.get();
    const totals = values.map((v) => [String(v.labels['projection']), v.value] as const);
    const now = JSON.stringify(totals);
    if (now === sent) return;
    sent = now;
    send({ kind: 'waits', totals });
  };
  const timer = setInterval(() => void report(), WAITS_REPORT_MS);
  timer.unref();
  return {
    /** Stops the reports after a last one. */
    last: () => {
      clearInterval(timer);
      return report();
    },
  };
}

async function stop(app: { close(): Promise<void> }, storage: { close(): Promise<void> }): Promise<void> {
  await app.close();
  await storage.close();
}

await runReadModelThread();
