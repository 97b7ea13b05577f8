export { EnforcementModule } from './enforcement.module.js';
export type * from './domain/user-strikes.events.js';
export { userStrikesStream } from './domain/user-strikes.streams.js';
export type * from './domain/action-execution.events.js';
export { actionExecutionStream } from './domain/action-execution.streams.js';
