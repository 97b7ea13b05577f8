import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Files worth compressing: text. Under 1 KiB a copy saves less than its headers cost. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;
const MIN_BYTES = 1024;

/**
 * Writes `<file>.br` and `<file>.gz` beside each text asset, at the strongest settings (this runs
 * once per build, not per request), for the server's static files to send as they are to a
 * browser that accepts them (@fastify/static's `preCompressed`). A copy that is not smaller is
 * not written, so the file itself is sent.
 */
function precompress(): Plugin {
  const brotli = promisify(brotliCompress);
  const gzipped = promisify(gzip);
  return {
    name: 'warden-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? '';
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => COMPRESSIBLE.test(name))
          .map(async (name) => {
            const path = join(dir, name);
            const bytes = await readFile(path);
            if (bytes.length < MIN_BYTES) return;
            const [br, gz] = await Promise.all([
              brotli(bytes, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                  [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
                },
              }),
              gzipped(bytes, { level: constants.Z_BEST_COMPRESSION }),
            ]);
            if (br.length < bytes.length) await writeFile(`${path}.br`, br);
            if (gz.length < bytes.length) await writeFile(`${path}.gz`, gz);
          }),
      );
    },
  };
}

/**
 * The review console: built into dist/console by `npm run build`, served by the server at
 * /console (same origin as /api/console/v1, so the session cookie and CSRF header just work).
 * `npm run console:dev` serves it with hot reload and forwards the API to a server started with
 * `npm start` on its default port.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // One small app: a single chunk keeps the first screen to two requests.
    chunkSizeWarningLimit: 400,
    // The precompression above takes most of the build's time, on purpose: no warning about it.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/saml': 'http://127.0.0.1:3000' },
  },
});
