import { prepareEntry } from './node-version.js';

prepareEntry();
// A reader that stops early (`warden … | head -1`) closes the pipe: what is left to print has
// nowhere to go, and the command still ends with its own exit code (docs/cli.md), not with an
// EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});
const argv = process.argv.slice(2);
// A command that needs none of the application (an auditor's `audit verify`) runs without loading it.
const { runOffline } = await import('./cli/run-offline.js');
const offline = await runOffline(argv);
if (offline !== undefined) process.exitCode = offline;
else {
  const { runCli } = await import('./cli/run-cli.js');
  process.exitCode = await runCli(argv);
}
