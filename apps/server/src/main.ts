import { prepareEntry } from './node-version.js';

prepareEntry();
const { runServer } = await import('./server.js');
await runServer();
