export * from './read-store.port.js';
export { SqliteReadStore } from './sqlite/sqlite-read-store.js';
