import module from 'node:module';
import { assertNodeVersion } from './node-version.js';

assertNodeVersion();
// V8's compiled code for what the CLI loads is kept on disk between runs (Node's compile cache,
// in <OS temp dir>/node-compile-cache unless NODE_COMPILE_CACHE names another folder;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): a run with a warm cache compiles nearly nothing.
module.enableCompileCache();
// A reader that stops early (`warden … | head -1`) closes the pipe: what is left to print has
// nowhere to go, and the command still ends with its own exit code (docs/cli.md), not with an
// EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});
const { runCli } = await import('./cli/run-cli.js');
process.exitCode = await runCli(process.argv.slice(2));
