import { DomainError, notFound } from '#warden/kernel';

export const jobNotFound = (jobId: string) => notFound(`No review job ${jobId}`);

export const jobClosed = (jobId: string) => new DomainError('job-closed', [{ title: 'Job closed', detail: `Review job ${jobId} is already decided` }]);

export const lockNotHeld = (jobId: string) =>
  new DomainError('lock-not-held', [
    { title: 'Lock not held', detail: `You do not hold the lock on review job ${jobId} (claim it first, or it was released or claimed by someone else)` },
  ]);

export const lockExpired = (jobId: string) =>
  new DomainError('lock-expired', [{ title: 'Lock expired', detail: `Your lock on review job ${jobId} expired; claim the job again` }]);

export const jobLocked = (jobId: string, why: string) => new DomainError('job-locked', [{ title: 'Job locked', detail: `Review job ${jobId} ${why}` }]);
