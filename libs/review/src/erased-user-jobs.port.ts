import type { CommandContext } from '#warden/kernel';

/**
 * What a GDPR deletion does to review (ERASED_USER_JOBS): a port review declares and provides,
 * and the erasure module calls within its one step (docs/architecture.md, "Ports" and "Main
 * flows"). Required by the erasure module.
 */
export interface ErasedUserJobs {
  /**
   * Closes the open review jobs (appeal jobs included) of the items an erased user submitted, their
   * user item among them, with AUTOMATIC_CLOSE, reason USER_ERASED; answers how many it closed. The
   * same `requestId` again closes nothing more.
   */
  close(requestId: string, items: ReadonlyArray<{ readonly id: string; readonly typeId: string }>, context: CommandContext): Promise<number>;
}

export const ERASED_USER_JOBS = Symbol('ErasedUserJobs');
