import module from 'node:module';
import { assertNodeVersion } from './node-version.js';

assertNodeVersion();
// V8's compiled code for what the server loads is kept on disk between runs (Node's compile cache,
// in <OS temp dir>/node-compile-cache unless NODE_COMPILE_CACHE names another folder;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): a run with a warm cache compiles nearly nothing.
module.enableCompileCache();
const { runServer } = await import('./server.js');
await runServer();
