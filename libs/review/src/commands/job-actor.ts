import type { Permission } from '#warden/kernel';

/** The console user a job command acts for. */
export interface JobActor {
  readonly userId: string;
  readonly permissions: readonly Permission[];
}
