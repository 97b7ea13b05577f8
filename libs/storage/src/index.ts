export { openStorage, type Storage } from './storage.js';
export { StorageModule } from './storage.module.js';
export { ProjectionHost } from './projection-host.js';
export { AggregateStore } from './aggregate-store.js';
export { STORAGE, EVENT_STORE, READ_STORE, SUBJECT_KEY_STORE } from './storage.tokens.js';
