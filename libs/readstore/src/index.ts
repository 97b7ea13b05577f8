export * from './read-store.port.js';
export { type SharedTableMove, SqliteReadStore } from './sqlite/sqlite-read-store.js';
export { connectMongo, createMongoReadStore } from './production-adapters.js';
