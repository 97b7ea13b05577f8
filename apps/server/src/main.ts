import { assertNodeVersion } from './node-version.js';

assertNodeVersion();
const { runServer } = await import('./server.js');
await runServer();
