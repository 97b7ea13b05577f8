export * from './errors.js';
export * from './clock.js';
export * from './ids.js';
export * from './stream-name.js';
export * from './events.js';
export * from './decider.js';
export * from './upcasting.js';
export * from './url-redaction.js';
