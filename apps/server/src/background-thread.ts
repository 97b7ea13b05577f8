// The background thread's entry (docs/architecture.md, "The background thread"): started by an
// `all` process (BackgroundThread in background-delegate.ts), never run by itself. It is a worker
// role on a thread: it opens the same stores with connections of its own, composes the application
// with background work and without HTTP, and runs the projections and reactors (startBackground),
// so that evaluation, strikes and callbacks take a core of their own instead of the event loop that
// answers requests. It answers the main thread's requests for its metrics, and stops when told.
import 'reflect-metadata';
import { parentPort } from 'node:worker_threads';
import { NestFactory } from '@nestjs/core';
import { createRootLogger, loadConfig, Metrics, PinoNestLogger } from '#warden/platform';
import { openStorage } from '#warden/storage';
import { AppModule } from './app.module.js';
import { startBackground } from './background.js';
import type { FromBackground, ToBackground } from './background-delegate.js';

async function runBackgroundThread(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('background-thread.js runs as a worker thread of the server');
  const send = (message: FromBackground) => port.postMessage(message);
  let opened: { close(): Promise<void> } | undefined;
  try {
    // The same environment as the main thread, which has checked it already.
    const config = loadConfig();
    const logger = createRootLogger(config.logLevel).child({ thread: 'background' });
    // The main thread runs the WAL checkpointer for every connection of the process.
    const storage = await openStorage({ ...config, backgroundCheckpoints: true, checkpointsElsewhere: true });
    opened = storage;
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: true }), {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    });
    const metrics = app.get(Metrics);
    let stopping = false;
    port.on('message', (message: ToBackground) => {
      switch (message.kind) {
        case 'metrics':
          metrics.threadMetrics().then(
            (values) => send({ kind: 'metrics', id: message.id, values }),
            () => send({ kind: 'metrics', id: message.id, values: [] }),
          );
          return;
        case 'stop':
          stopping = true;
          // Closing the application stops the projections and reactors after their batch in
          // progress (StorageModule's shutdown hook) and the read-model thread; then the stores.
          void started
            .catch(() => undefined)
            .then(() => app.close())
            .then(() => storage.close())
            .then(
              () => port.close(),
              (error: unknown) => {
                logger.error({ msg: 'background thread: stopping failed', error: String(error) });
                port.close();
              },
            );
      }
    });
    // At once: nothing is handed over (the main thread follows the log with no runner of its
    // own). A stop that comes meanwhile waits for the start, and then stops what it started.
    const started = startBackground(app, config, storage, logger, () => stopping).then(
      () => send({ kind: 'ready' }),
      (error: unknown) => {
        send({ kind: 'failed', error: String(error) });
        port.close();
      },
    );
  } catch (error) {
    send({ kind: 'failed', error: String(error) });
    // The main thread ends the thread when it hears of the failure; the stores close first if they can.
    await opened?.close().catch(() => undefined);
    port.close();
  }
}

await runBackgroundThread();
