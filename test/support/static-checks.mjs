// npm test's static checks (docs/testing.md, "What the suite costs"): both typechecks, ESLint,
// Prettier's check and the layer rules. Each is one single-threaded process and none reads
// another's output, so they run side by side: on two cores the wall time is about half their sum
// (the longest, ESLint, alone is under half) instead of all of it one after another. Each check's
// output is printed whole when it ends, never interleaved; the exit code is 1 when any failed.
//
// With --background (how `npm test` runs them, beside the tests: run-tests.mjs) the process lowers
// its CPU priority to the lowest before it starts the checks, which inherit it.
//
// The same commands as the package scripts (`npm run typecheck`, `lint`, `lint:layers`), so a
// failure here is reproduced by the script it names.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;

// The scripts' `&&` chains split into their commands, each one check of its own.
const checks = ['typecheck', 'lint', 'lint:layers'].flatMap((script) =>
  scripts[script].split(' && ').map((command, i, all) => ({ name: all.length > 1 ? `${script} (${i + 1}/${all.length})` : script, command })),
);

if (process.argv.includes('--background')) setPriority(19);

const started = Date.now();
const results = await Promise.all(
  checks.map(
    ({ name, command }) =>
      new Promise((resolve) => {
        const t0 = Date.now();
        // Through a shell with node_modules/.bin on the PATH, as npm runs a script.
        const child = spawn(command, {
          cwd: root,
          shell: true,
          env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}` },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (c) => (output += c));
        child.stderr.on('data', (c) => (output += c));
        child.once('close', (code) => {
          const seconds = ((Date.now() - t0) / 1000).toFixed(1);
          process.stdout.write(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds} s): ${command}\n${code === 0 ? '' : output}`);
          resolve({ name, code });
        });
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
process.stdout.write(`static checks: ${checks.length - failed.length} of ${checks.length} passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (failed.length > 0) {
  process.stdout.write(`failed: ${failed.join(', ')} (run \`npm run <script>\` to see it alone)\n`);
  process.exit(1);
}
