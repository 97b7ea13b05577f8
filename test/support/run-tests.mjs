// `npm test` after the build: the static checks and the whole vitest run at once (docs/testing.md,
// "What the suite costs"). The tests leave part of the two cores idle while they wait for the
// processes they start (about a sixth of the run), and the static checks, run before the tests,
// added a minute and a half to a fresh clone's run. Side by side, at the lowest CPU priority (the
// checks lower their own before they start theirs: static-checks.mjs --background), the checks
// take mostly that idle time and the tests keep the cores whenever they want them.
//
// vitest's output streams as usual; the static checks' report is printed when both are done, so
// the run's last lines say what failed. The exit code is 1 when either failed. Arguments are
// vitest's (`npm test -- --reporter=…`).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeRunTempDir, runTempDir } from './run-temp-dir.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'node_modules/.bin');

/** Resolves with `child`'s exit code, 1 when it could not start or was killed. */
function exitOf(child, name) {
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`${name}: ${error.message}\n`);
      resolve(1);
    });
    child.once('close', (code) => resolve(code ?? 1));
  });
}

const { dir: tempDir, env } = runTempDir();
let staticReport = '';
const checks = spawn(process.execPath, [join(root, 'test/support/static-checks.mjs'), '--background'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
checks.stdout.on('data', (chunk) => (staticReport += chunk));
checks.stderr.on('data', (chunk) => (staticReport += chunk));
const staticChecks = exitOf(checks, 'static checks');
const tests = exitOf(spawn(join(bin, 'vitest'), ['run', ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' }), 'vitest');

const [testsCode, staticCode] = await Promise.all([tests, staticChecks]);
removeRunTempDir(tempDir);
process.stdout.write(`\n${staticReport}`);
process.exitCode = testsCode !== 0 || staticCode !== 0 ? 1 : 0;
