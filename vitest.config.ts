import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Libraries import each other as `#warden/<lib>` (package.json "imports"); tests run the sources.
    alias: [
      { find: /^#warden\/([a-z-]+)$/, replacement: fileURLToPath(new URL('./libs/$1/src/index.ts', import.meta.url)) },
      { find: /^#warden\/([a-z-]+)\/contracts$/, replacement: fileURLToPath(new URL('./libs/$1/src/contracts.ts', import.meta.url)) },
      { find: /^#warden\/([a-z-]+)\/http$/, replacement: fileURLToPath(new URL('./libs/$1/src/http.ts', import.meta.url)) },
    ],
  },
  test: {
    // End-to-end tests start real server and CLI processes; on a loaded 2-core machine a CLI
    // run takes a second or more, so the default 5 s per test is too tight.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts'],
  },
});
