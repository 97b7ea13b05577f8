import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { createRootLogger, loadConfig } from '#warden/platform';
import { buildOpenApiDocument, createHttpApp } from '#warden/platform/http';
import { openStorage } from '#warden/storage';
import { AppModule } from './app.module.js';
import { HttpSurfaceModule } from './http-surface.module.js';
import { WARDEN_VERSION } from './version.js';

/** The public OpenAPI document, generated from the code on a throw-away embedded store. */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-openapi-'));
  try {
    const config = loadConfig({ WARDEN_DATA_DIR: dir, WARDEN_LOG_LEVEL: 'error' });
    const storage = await openStorage(config);
    const app = await createHttpApp(
      AppModule.forRoot(config, storage, { background: false, http: HttpSurfaceModule.forRoles({ http: true, background: false }) }),
      config,
      createRootLogger('error'),
      WARDEN_VERSION,
    );
    try {
      return buildOpenApiDocument(app, WARDEN_VERSION);
    } finally {
      await app.close();
      await storage.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
