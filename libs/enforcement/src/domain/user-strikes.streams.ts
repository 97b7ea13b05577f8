import { idProblem, streamName } from '#warden/kernel';

/** One stream per user: `user_strikes-<org>:<typeId>:<id>`; undefined when an id cannot name one. */
export function userStrikesStream(orgId: string, user: { typeId: string; id: string }): string | undefined {
  if (idProblem(orgId) || idProblem(user.typeId) || idProblem(user.id)) return undefined;
  return streamName('user_strikes', orgId, user.typeId, user.id);
}
