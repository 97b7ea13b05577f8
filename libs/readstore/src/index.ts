export * from './read-store.port.js';
export { SqliteReadStore } from './sqlite/sqlite-read-store.js';
export { MongoReadStore, connectMongo } from './mongo/mongo-read-store.js';
