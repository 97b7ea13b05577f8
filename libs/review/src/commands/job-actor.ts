import type { Permission } from '#warden/identity/contracts';

/** The console user a job command acts for. */
export interface JobActor {
  readonly userId: string;
  readonly permissions: readonly Permission[];
}
