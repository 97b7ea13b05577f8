import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';
import { Metrics, type WardenConfig } from '#warden/platform';
import { ItemSubmissionConsumer } from '#warden/inbound';
import { ProjectionHost, type Storage } from '#warden/storage';
import { ReadModelThread } from './read-model-delegate.js';

/**
 * Starts what a worker runs beside requests: the projections and reactors (the read models that
 * nothing on the write path waits for on the read-model thread, per WARDEN_READ_MODEL_THREAD) and
 * the inbound topic's consumer. Run by a `worker` process once it listens, by the background
 * thread of an `all` process (background-thread.ts), and by an `all` process's event loop itself
 * with WARDEN_BACKGROUND_THREAD=off. `stopping` answers whether a shutdown began meanwhile.
 */
export async function startBackground(
  app: INestApplicationContext,
  config: WardenConfig,
  storage: Pick<Storage, 'events' | 'sequentialPositions'>,
  logger: Logger,
  stopping: () => boolean,
): Promise<void> {
  const host = app.get(ProjectionHost);
  // The read models nothing on the write path waits for run on a thread of their own
  // (docs/architecture.md, "The read-model thread"); the host hands them over before it starts.
  // KurrentDB's positions do not count events: `auto` starts the thread at once there.
  const thread = config.readModelThread === 'auto' && !storage.sequentialPositions ? 'on' : config.readModelThread;
  // `auto` counts from here: the projections' start may take a while under a burst (catching up).
  const since = thread === 'auto' ? await storage.events.headPosition() : 0;
  const threadOptions = { metrics: app.get(Metrics) };
  if (thread === 'on') await ReadModelThread.start(host, logger, threadOptions);
  // A signal while the above waited: the host has stopped, and starts nothing (ProjectionHost.startAll).
  await host.startAll();
  if (thread === 'auto' && !stopping()) ReadModelThread.startWhenBusy(host, storage.events, since, logger, threadOptions);
  // Likewise the inbound topic: its messages become commands.
  if (!stopping() && config.inboundTopic !== undefined) await app.get(ItemSubmissionConsumer).start();
}
