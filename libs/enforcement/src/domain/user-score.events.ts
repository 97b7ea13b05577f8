/**
 * What moves a score: submissions (ingestion), published actions (the rules engine's, review
 * decisions', executed actions'; all ActionCallbackRequested), and their reversal by an accepted
 * appeal (UserActionsReversed, recorded by the strikes of this module).
 */
export const USER_SCORE_EVENT_TYPES = ['ItemSubmitted', 'ActionCallbackRequested', 'UserActionsReversed'] as const;
