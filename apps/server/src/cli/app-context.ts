import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRootLogger, PinoNestLogger, type WardenConfig } from '#warden/platform';
import { openStorage } from '#warden/storage';
import { AppModule } from '../app.module.js';

/** Runs with an application context over the stores `config` names (no HTTP, no background work), then closes both. */
export async function withApp<T>(config: WardenConfig, run: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const logger = createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const storage = await openStorage(config);
  // What the server logs at start-up (an upgrade's move or rebuild of the read models, a key
  // generated): a CLI call may be the first to open the data directory after an upgrade.
  for (const notice of storage.notices) logger.warn(notice);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: false }), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  try {
    return await run(app);
  } finally {
    await app.close();
    await storage.close();
  }
}
