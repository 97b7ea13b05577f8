export const STORAGE = Symbol('Storage');
export { EVENT_STORE, SUBJECT_KEY_STORE } from '../../../eventstore/src/index.js';
export { READ_STORE } from '../../../readstore/src/index.js';
