export * from './read-store.port.js';
export { SqliteReadStore } from './sqlite/sqlite-read-store.js';
export { connectMongo, createMongoReadStore } from './production-adapters.js';
