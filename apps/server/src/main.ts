import module from 'node:module';
import { assertNodeVersion } from './node-version.js';

assertNodeVersion();
// Compiled code is cached between starts (Node's on-disk compile cache, as bin/warden.js does for
// the CLI): the server loads some 1,500 modules before it listens, and the tests start it hundreds
// of times.
module.enableCompileCache?.();
const { runServer } = await import('./server.js');
await runServer();
