export * from './read-store.port.js';
export { countUpTo, findAfter } from './list-pages.js';
export { type SharedTableMove, SqliteReadStore } from './sqlite/sqlite-read-store.js';
export { adoptReadModels, dropReadModelsAheadOfLog, READ_MODELS_FILE_NAME } from './sqlite/adopt-read-models.js';
export { connectMongo, createMongoReadStore } from './production-adapters.js';
