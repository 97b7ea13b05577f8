export { EnforcementModule } from './enforcement.module.js';
export * from './contracts.js';
// Its ports (docs/architecture.md, "Ports"): what the review and callbacks modules read of a user's standing.
export { USER_STRIKES, type UserStrikes, type UserStrikeHistory, type StrikeEntry, USER_SCORE, type UserScore } from './standing/user-standing.ports.js';
export { GetUserScoreQuery } from './queries/get-user-score/get-user-score.query.js';
export { GetUserStrikesQuery } from './queries/get-user-strikes/get-user-strikes.query.js';
