// `npm run build` (also `npm start`'s and `prepare`'s first step): the server into dist/ with
// TypeScript's incremental build (`tsc -b`) and its entries bundled from that output
// (scripts/bundle.mjs: dist/apps/server/bundle/main.js and cli.js, what runs), then the console into dist/console with Vite, each
// only when its inputs changed since the last finished build (scripts/build-inputs.mjs), so that
// a build with nothing changed takes well under a second. `--force` builds both anyway.
// On success it records the inputs' digests in dist/.build-inputs.json, which the end-to-end
// tests compare with the work tree.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { combined, consoleInputs, digests, readStamp, ROOT, serverInputs, STAMP } from './build-inputs.mjs';
import { bundleServer, CLI_ENTRY, SERVER_ENTRY } from './bundle.mjs';

const force = process.argv.includes('--force');
const bin = (pkg, path) => join(ROOT, 'node_modules', pkg, path);

function run(what, script, args, { quiet = false } = {}) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`build: ${what} failed`);
    process.exit(result.status ?? 1);
  }
}

const before = force ? undefined : readStamp();
// Taken before building: a file saved during the build leaves the stamp stale, as it should.
const server = digests(serverInputs());
const console_ = digests(consoleInputs());

const serverCurrent = before && combined(before.server) === combined(server) && existsSync(SERVER_ENTRY) && existsSync(CLI_ENTRY);
if (!serverCurrent) {
  run('tsc', bin('typescript', 'bin/tsc'), ['-b', 'tsconfig.build.json', ...(force ? ['--force'] : [])]);
  try {
    await bundleServer();
  } catch {
    // esbuild has printed what failed.
    console.error('build: bundling the server failed');
    process.exit(1);
  }
}

const consoleCurrent = before && combined(before.console) === combined(console_) && existsSync(join(ROOT, 'dist/console/index.html'));
if (!consoleCurrent) {
  const schema = 'apps/console/src/api/schema.gen.ts';
  run('openapi-typescript', bin('openapi-typescript', 'bin/cli.js'), ['docs/openapi.json', '-o', schema], { quiet: true });
  run('vite build', bin('vite', 'bin/vite.js'), ['build', '--config', 'apps/console/vite.config.ts', '--logLevel', 'warn']);
}

mkdirSync(dirname(STAMP), { recursive: true });
writeFileSync(STAMP, JSON.stringify({ server, console: console_ }) + '\n');
