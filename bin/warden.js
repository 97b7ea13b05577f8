#!/usr/bin/env node
// The `warden` command (package.json "bin"): runs the BUILT CLI, dist/apps/server/bundle/cli.js,
// without compiling first (`npm install` and `npm start` build; after changing the sources, run
// `npm run build`). Written for any Node that may be first on PATH: npm puts the pinned Node
// (node_modules/.bin/node) first; a shell may not, and then this re-runs itself on the pinned one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MINIMUM_NODE_MAJOR = 24;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/apps/server/bundle/cli.js');

if (Number(process.versions.node.split('.')[0]) < MINIMUM_NODE_MAJOR) {
  const pinned = join(root, 'node_modules/.bin/node');
  if (!existsSync(pinned)) {
    process.stderr.write(
      `warden needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}) and the pinned one is not installed: run npm install.\n`,
    );
    process.exit(1);
  }
  const run = spawnSync(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.error) {
    process.stderr.write(`warden could not start the pinned Node.js (${pinned}): ${run.error.message}\n`);
    process.exit(1);
  }
  if (run.signal) process.kill(process.pid, run.signal);
  process.exit(run.status ?? 1);
}

if (!existsSync(cli)) {
  process.stderr.write('warden is not built yet: run npm run build (npm install and npm start build it too).\n');
  process.exit(1);
}
await import(pathToFileURL(cli).href);
