export { openStorage, type Storage } from './storage.js';
export { StorageModule } from './storage.module.js';
export { DelegateGoneError, type ProjectionDelegate, ProjectionHost } from './projection-host.js';
export { AggregateStore } from './aggregate-store.js';
export { STORAGE, EVENT_STORE, READ_STORE, SUBJECT_KEY_STORE } from './storage.tokens.js';
export { Keyring, KEYRING, KEY_FILE, isSealedSecret, keyFileAccessProblem, loadKeyring, type SealedSecret } from './secrets/keyring.js';
export { openUrl, sealUrl, type StoredUrl, withSealedUrl } from './secrets/sealed-url.js';
export { sharedRateLimitStores } from './rate-limit/mongo-rate-limit-store.js';
