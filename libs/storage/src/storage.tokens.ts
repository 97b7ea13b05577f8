export const STORAGE = Symbol('Storage');
export { EVENT_STORE, SUBJECT_KEY_STORE } from '#warden/eventstore';
export { READ_STORE } from '#warden/readstore';
