import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The review console: built into dist/console by `npm run build`, served by the server at
 * /console (same origin as /api/console/v1, so the session cookie and CSRF header just work).
 * `npm run console:dev` serves it with hot reload and forwards the API to a server started with
 * `npm start` on its default port.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // One small app: a single chunk keeps the first screen to two requests.
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/saml': 'http://127.0.0.1:3000' },
  },
});
