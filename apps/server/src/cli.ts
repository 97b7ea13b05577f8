import { prepareEntry } from './node-version.js';

prepareEntry();
// A reader that stops early (`warden … | head -1`) closes the pipe: what is left to print has
// nowhere to go, and the command still ends with its own exit code (docs/cli.md), not with an
// EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});
const { runCli } = await import('./cli/run-cli.js');
process.exitCode = await runCli(process.argv.slice(2));
