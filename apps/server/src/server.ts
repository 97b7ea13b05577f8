import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ConfigError, createRootLogger, DEFAULT_PASSWORD_HASH_COST, loadConfig, Metrics, type WardenConfig } from '#warden/platform';
import { createHttpApp, startDraining } from '#warden/platform/http';
import { openStorage, sharedRateLimitStores } from '#warden/storage';
import { AppModule, rolesOf } from './app.module.js';
import { startBackground } from './background.js';
import { BackgroundThread } from './background-delegate.js';
import { HttpSurfaceModule } from './http-surface.module.js';
import { WARDEN_VERSION } from './version.js';

/** Starts Warden: validated configuration, stores (failing fast), then HTTP. */
export async function runServer(): Promise<void> {
  let config: WardenConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(error.message + '\n');
      process.exit(1);
    }
    throw error;
  }
  const logger = createRootLogger(config.logLevel);
  let storage;
  try {
    storage = await openStorage({ ...config, backgroundCheckpoints: true });
  } catch (error) {
    process.stderr.write(`Cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  for (const notice of storage.notices) logger.warn(notice);
  const roles = rolesOf(config);
  // An `all` process runs its background work on a thread of its own (docs/architecture.md, "The
  // background thread"): this event loop then answers requests, as an api's does.
  const onThread = roles.background && roles.http && config.backgroundThread === 'on';
  let background: BackgroundThread | undefined;
  const app = await createHttpApp(
    // With the thread, this loop composes the background work too but starts none of it (it all
    // starts from the host, startBackground): only if the thread can never start does it run here.
    AppModule.forRoot(config, storage, { background: roles.background, http: HttpSurfaceModule.forRoles(roles) }),
    config,
    logger,
    WARDEN_VERSION,
    {
      sharedRateLimits: sharedRateLimitStores(storage.mongo),
      // dist/apps/server/src/server.js → dist/console, where `npm run build` puts the console.
      consoleDir: fileURLToPath(new URL('../../../console', import.meta.url)),
      pages: roles.http,
    },
  );
  // Graceful shutdown: stop accepting, finish in-flight requests and projection batches, close
  // the stores (Nest's shutdown hooks, in that order), then exit 0.
  // A terminal's Ctrl-C reaches npm and this process, and npm passes it on once more: a signal
  // that comes while shutting down is noted, not obeyed (its default would kill the shutdown).
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    // A client that never reads its answer (a streamed export left unread) or never finishes its
    // request would hold the close until the connection times out (Fastify's keep-alive, 72 s):
    // past the drain time, what is still open is closed (docs/operations.md, "Shutdown").
    const drain = setTimeout(() => {
      logger.warn({ drainMs: config.shutdownDrainMs }, 'connections still open after the drain time: closed');
      (app.getHttpServer() as Server).closeAllConnections();
    }, config.shutdownDrainMs);
    drain.unref();
    // New requests are answered 503 from now, while the shutdown hooks run (a worker's evaluations
    // on this loop when the background thread is off), not only once Fastify's own close begins.
    startDraining(app);
    app
      .close()
      // Then the background thread's batches in progress, before the stores close under them.
      .then(() => background?.stop())
      .then(() => storage.close())
      .then(
        () => {
          logger.info('stores closed');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ error: String(error) }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A port already taken (a second `npm start`, or a replayed data directory served beside the
    // first server: docs/audit.md) fails start-up like an unreachable store, with one line
    // (docs/operations.md), not a stack trace: the last line, after the stores have closed.
    await app.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    process.stderr.write(`Cannot start: ${listenFailure(error, config)}\n`);
    process.exit(1);
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  logger.info(
    {
      version: WARDEN_VERSION,
      role: config.role,
      storage: storage.description,
      port,
      url,
      // Where a person opens the review console (served by every role that serves HTTP): at the
      // public URL, which invitation and SSO links name too, since a session signed in at another
      // host name (127.0.0.1 for localhost) is not seen there (README.md, "Console users").
      console: `${publicOrigin(config.publicUrl, port)}/console/`,
      startupMs: Math.round(performance.now()),
    },
    'warden started',
  );
  if (config.passwordHashCost < DEFAULT_PASSWORD_HASH_COST)
    logger.warn(
      { passwordHashCost: config.passwordHashCost },
      `WARDEN_PASSWORD_HASH_COST is below ${DEFAULT_PASSWORD_HASH_COST}: console passwords are hashed for a test suite, not for production (docs/configuration.md)`,
    );
  // Projections and reactors start once the server listens and has said so: they use the command
  // and query buses, whose handlers are registered while the application bootstraps, and after a
  // crash with a backlog they take the event loop, which held listening back for tens of seconds.
  // Requests need none of them: the read paths that decide access catch their read model up
  // themselves, and the others answer from read models that are eventually consistent anyway.
  if (!roles.background || shuttingDown) return;
  if (onThread)
    background = BackgroundThread.start(logger, app.get(Metrics), {
      fallBack: () => {
        if (shuttingDown) return;
        startBackground(app, config, storage, logger, () => shuttingDown).catch((error: unknown) =>
          logger.error({ msg: 'background work could not start on the main thread either', error: String(error) }),
        );
      },
    });
  else await startBackground(app, config, storage, logger, () => shuttingDown);
}

/**
 * The public URL's origin with the port the server listens on where that URL names port 0 (the
 * default `http://localhost:$PORT` with `PORT=0`: a port the system picked).
 */
function publicOrigin(publicUrl: string, port: number): string {
  const origin = new URL(publicUrl);
  if (origin.port === '0') origin.port = String(port);
  return origin.origin;
}

/** Why the HTTP server could not listen, in terms of the variables that choose where. */
function listenFailure(error: unknown, config: WardenConfig): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `port ${config.port} on ${config.host}`;
  if (code === 'EADDRINUSE') return `${where} is already in use by another process (PORT=… picks another port)`;
  if (code === 'EACCES') return `not allowed to listen on ${where} (PORT=… picks another port)`;
  if (code === 'EADDRNOTAVAIL') return `${config.host} is not an address of this machine (HOST=… picks another)`;
  return `cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
}
