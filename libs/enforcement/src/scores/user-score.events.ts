/**
 * What moves a score: submissions (ingestion) and published actions (the rules engine's, review
 * decisions', executed actions'; all ActionCallbackRequested). A reversal event (an accepted
 * appeal) joins here and is applied with `withoutAction` (domain/user-score.ts).
 */
export const USER_SCORE_EVENT_TYPES = ['ItemSubmitted', 'ActionCallbackRequested'] as const;
