import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { createRootLogger, loadConfig } from '#warden/platform';
import { createHttpApp } from '#warden/platform/http';
import { openStorage } from '#warden/storage';
import { AppModule } from './app.module.js';
import { HttpSurfaceModule } from './http-surface.module.js';
import { WARDEN_VERSION } from './version.js';

/**
 * The public OpenAPI document: what a server with this configuration serves at /openapi.json,
 * read from that route on a throw-away embedded store, so that the committed document and the
 * served one cannot drift apart. `env` adds settings (WARDEN_PUBLIC_URL names the server); the
 * committed docs/openapi.json is generated with none, so it names the default.
 */
export async function generateOpenApiDocument(env: Record<string, string> = {}): Promise<OpenAPIObject> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-openapi-'));
  try {
    const config = loadConfig({ ...env, WARDEN_DATA_DIR: dir, WARDEN_LOG_LEVEL: 'error' });
    const storage = await openStorage(config);
    const app = await createHttpApp(
      AppModule.forRoot(config, storage, { background: false, http: HttpSurfaceModule.forRoles({ http: true, background: false }) }),
      config,
      createRootLogger('error'),
      WARDEN_VERSION,
    );
    try {
      const served = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/openapi.json' });
      if (served.statusCode !== 200) throw new Error(`GET /openapi.json answered ${served.statusCode}`);
      return JSON.parse(served.body) as OpenAPIObject;
    } finally {
      await app.close();
      await storage.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
