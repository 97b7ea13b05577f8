// Runs a command (`npm run test:unit` and the other single-project scripts) with its own temporary
// directory, removed when it ends (run-temp-dir.mjs); exits with the command's code.
import { spawn } from 'node:child_process';
import { removeRunTempDir, runTempDir } from './run-temp-dir.mjs';

const [command, ...args] = process.argv.slice(2);
const { dir, env } = runTempDir();
const child = spawn(command, args, { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.once('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
});
child.once('close', (code) => {
  removeRunTempDir(dir);
  process.exitCode = code ?? 1;
});
