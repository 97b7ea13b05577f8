import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/support/slowest-first.sequencer.js';

/**
 * Four projects (docs/testing.md), each with its own script: `npm run test:unit`, `test:e2e`,
 * `test:browser`, `test:fuzz`; `npm test` runs all four in one `vitest run`, a group after another.
 *
 * - unit: the libraries' and the server app's specs, on the sources; nothing to build. CPU-bound,
 *   so as many workers as cores, without a fresh module graph per file.
 * - e2e: what runs the built server and CLI (dist/) as processes: test/e2e, the checks in test/
 *   itself, and any `*.e2e.spec.ts` beside the sources. A file mostly waits for those processes
 *   (start-ups, CLI runs, projections catching up), so files run side by side, one per core.
 * - browser: the console in a real Chromium against the built server.
 * - fuzz: generated requests against the built server.
 *
 * The projects that run dist/ refuse a stale one (test/support/built-dist.global-setup.ts).
 * WARDEN_TEST_WORKERS sets the workers of the e2e, browser and fuzz projects (unit: the cores).
 */
const cores = Math.max(1, availableParallelism());
// One per core (vitest's default is one fewer: on two cores, one file at a time).
const processWorkers = Number(process.env['WARDEN_TEST_WORKERS'] ?? cores);
const builtDist = ['test/support/built-dist.global-setup.ts'];

export default defineConfig({
  resolve: {
    // Libraries import each other as `#warden/<lib>` (package.json "imports"); tests run the sources.
    alias: [
      { find: /^#warden\/audit\/verifier$/, replacement: fileURLToPath(new URL('./libs/audit/src/verifier.ts', import.meta.url)) },
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
    // A group's files longest first, whatever their project (test/support/slowest-first.sequencer.ts).
    sequence: { sequencer: SlowestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts'],
          exclude: ['**/node_modules/**', '**/*.e2e.spec.ts'],
          maxWorkers: cores,
          // The files share one module graph per worker instead of importing Nest, the libraries
          // and their dependencies again for each of 144 files: 45 s of CPU instead of 132 s, the
          // same 1,178 tests passing. A spec that changes global state (fake timers, spies, env)
          // puts it back in an afterEach or finally, as they all do.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.spec.ts', 'test/*.spec.ts', 'apps/**/*.e2e.spec.ts', 'libs/**/*.e2e.spec.ts'],
          globalSetup: builtDist,
          maxWorkers: processWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.spec.ts'],
          globalSetup: builtDist,
          maxWorkers: processWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/fuzz/**/*.spec.ts'],
          globalSetup: builtDist,
          maxWorkers: processWorkers,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
