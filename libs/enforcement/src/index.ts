export { EnforcementModule } from './enforcement.module.js';
export type * from './domain/user-strikes.events.js';
export { userStrikesStream } from './domain/user-strikes.streams.js';
export type * from './domain/action-execution.events.js';
export { actionExecutionStream } from './domain/action-execution.streams.js';
// Its ports (docs/architecture.md, "Ports"): what the review and callbacks modules read of a user's standing.
export { USER_STRIKES, type UserStrikes, type UserStrikeHistory, type StrikeEntry, USER_SCORE, type UserScore } from './standing/user-standing.ports.js';
