import type { CommandContext } from '#warden/kernel';
import type { ConsolePrincipal } from './console-access.js';

/** The actor a console request's events name: the signed-in user, so the audit shows who did it. */
export const consoleActor = (principal: Pick<ConsolePrincipal, 'userId'>): string => `user:${principal.userId}`;

/** The command context of a console request: the session's organization, never a parameter's. */
export function consoleCommandContext(principal: ConsolePrincipal, requestId: string): CommandContext {
  return { orgId: principal.orgId, correlationId: requestId, actor: consoleActor(principal) };
}
