// The server's and the CLI's shipped entries: TypeScript's output (dist/apps, dist/libs: some 760
// files, each with decorator metadata already emitted) bundled by esbuild into
// dist/apps/server/bundle/main.js and cli.js. Loading one file per entry instead of hundreds saves
// Node's per-module resolution and reading at every start (docs/benchmarks.md, "Start-up"), and
// the tests run these files, so they test what `npm start`, `warden` and the image run.
//
// - Packages (node_modules) stay external: native ones (better-sqlite3, sharp) must, Nest's
//   optional `require`s of packages Warden does not install must stay lazy, and packages that read
//   their own files (swagger-ui-dist, @jsquash/jpeg's WebAssembly) find them where they are.
// - Code split: what the sources import lazily (`await import(…)`: the server itself, the CLI's
//   commands, the KurrentDB, MongoDB and NATS adapters, the SAML precheck) stays a separate file
//   that is loaded only when asked for, as it is unbundled.
// - Every file lands in the one folder, three levels under dist/ like dist/apps/server/src, so
//   the sources' paths relative to `import.meta.url` (the console in dist/console, package.json)
//   hold for both.
// - Names are kept (`keepNames`): Nest and the event store read class names.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './build-inputs.mjs';

export const BUNDLE_DIR = join(ROOT, 'dist/apps/server/bundle');
export const SERVER_ENTRY = join(BUNDLE_DIR, 'main.js');
export const CLI_ENTRY = join(BUNDLE_DIR, 'cli.js');

/** Import paths that name a package (not `./`, `../`, `/` or the sources' own `#warden/…`) are left to Node. */
const packagesExternal = {
  name: 'packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./#]/ }, (args) => ({ path: args.path, external: true }));
  },
};

export async function bundleServer() {
  // Loaded only to bundle: a build with nothing changed (`npm start`'s first step) does not pay for it.
  const { build } = await import('esbuild');
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'dist/apps/server/src/main.js', cli: 'dist/apps/server/src/cli.js' },
    outdir: BUNDLE_DIR,
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    keepNames: true,
    // Linked to TypeScript's own maps, so `node --enable-source-maps` points at the .ts sources.
    sourcemap: 'linked',
    plugins: [packagesExternal],
    logLevel: 'warning',
  });
}
