import { assertNodeVersion } from './node-version.js';

assertNodeVersion();
const { runCli } = await import('./cli/run-cli.js');
process.exitCode = await runCli(process.argv.slice(2));
