export * from './event-store.port.js';
export { openSqlite, SQLITE_FILE_NAME, type SqliteDatabase, type SqliteOptions } from './sqlite/sqlite-database.js';
export { SqliteEventStore } from './sqlite/sqlite-event-store.js';
export * from './personal-data/subject-key-store.port.js';
export { SqliteSubjectKeyStore } from './personal-data/sqlite-subject-key-store.js';
export { PersonalDataPolicy, type PersonalDataRule } from './personal-data/personal-data-policy.js';
export { PersonalDataEventStore, SEALED_FIELD } from './personal-data/personal-data-event-store.js';
export * from './projection/projection.js';
export { ProjectionRunner, rebuildReadModels, type ProjectionRunnerOptions } from './projection/projection-runner.js';
