export { EnforcementModule } from './enforcement.module.js';
export type * from './domain/user-strikes.events.js';
export { userStrikesStream } from './domain/user-strikes.streams.js';
